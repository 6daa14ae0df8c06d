import { describe, expect, it } from "vitest";
import { compileValue, MissingInputError } from "./adapters/template";
import { createSseParser } from "./sse";

describe("SSE parser", () => {
  it("assembles events split across chunks, with CRLF, multi-line data and comments", () => {
    const events: Array<[string | null, string]> = [];
    const p = createSseParser((name, data) => events.push([name, data]));
    for (const chunk of ["event: a\r\nda", "ta: 1\r\n\r\n: comment\n", "data: x\ndata: y\n\n", "data: last"]) p.push(chunk);
    p.end();
    expect(events).toEqual([
      ["a", "1"],
      [null, "x\ny"],
      [null, "last"],
    ]);
  });
});

describe("request templates", () => {
  const scope = { input: { to: "+49 151", amount: 12, nested: { id: "n1" } }, credential: "k", requestId: "r1", idempotencyKey: null };

  it("keeps a whole placeholder's type and stringifies embedded ones", () => {
    const f = compileValue({
      to: "{{input.to}}",
      amount: "{{input.amount}}",
      text: "ref {{requestId}}/{{input.nested.id}}",
      key: "{{idempotencyKey}}",
      fixed: [1, true],
    });
    expect(f(scope)).toEqual({ to: "+49 151", amount: 12, text: "ref r1/n1", key: "r1", fixed: [1, true] });
  });

  it("names a missing input field and refuses unknown placeholders at compile time", () => {
    expect(() => compileValue("{{input.missing}}")(scope)).toThrow(MissingInputError);
    expect(() => compileValue("{{secret}}")).toThrow(/unknown template placeholder \{\{secret\}\}/);
  });
});
