import { describe, expect, it } from "vitest";
import { httpJsonAdapter, ZHttpJsonOptions } from "./http-json";
import { TemplateInputError } from "./template";

const adapter = httpJsonAdapter({
  baseUrl: "https://sms.provider.example/tenant/acme",
  options: ZHttpJsonOptions.parse({ path: "/users/{{input.a}}/{{input.b}}/sms?ref={{input.ref}}", method: "POST" }),
});
const build = (input: Record<string, unknown>, requestId = "r-1") => adapter.build({ input, chat: null, requestId, idempotencyKey: null }, null, false).url;
const refusal = (input: Record<string, unknown>, requestId?: string) => {
  try {
    build(input, requestId);
  } catch (err) {
    return err instanceof TemplateInputError ? err.path : `other: ${(err as Error).message}`;
  }
  return "built";
};

describe("http_json path templates (path traversal)", () => {
  it("keeps values inside their segment, and encodes anything else", () => {
    expect(build({ a: "u 1", b: "x?y#z", ref: "../q/&r" })).toBe("https://sms.provider.example/tenant/acme/users/u%201/x%3Fy%23z/sms?ref=..%2Fq%2F%26r");
    expect(new URL(build({ a: "..x", b: "a.b", ref: "" })).pathname).toBe("/tenant/acme/users/..x/a.b/sms");
  });

  it.each([
    [{ a: "..", b: ".." }, "input.a"],
    [{ a: "ok", b: "." }, "input.b"],
    [{ a: "ok", b: "" }, "input.b"],
    [{ a: "x/y", b: "ok" }, "input.a"],
    [{ a: "x\\y", b: "ok" }, "input.a"],
    [{ a: "%2e%2e", b: "ok" }, "input.a"],
    [{ a: "x%2Fy", b: "ok" }, "input.a"],
    [{ a: "x%5cy", b: "ok" }, "input.a"],
    [{ a: "x%252fy", b: "ok" }, "input.a"],
    [{ a: "%25252e%25252e", b: "ok" }, "input.a"],
  ])("refuses %j naming %s", (input, field) => {
    expect(refusal({ ref: "r", ...input })).toBe(field);
  });

  it("checks the caller's requestId too when a path uses it", () => {
    const byId = httpJsonAdapter({ baseUrl: "https://p.example/t/acme", options: ZHttpJsonOptions.parse({ path: "/messages/{{requestId}}" }) });
    expect(() => byId.build({ input: {}, chat: null, requestId: "..", idempotencyKey: null }, null, false)).toThrow(
      expect.objectContaining({ path: "requestId" }),
    );
  });
});
