import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ContractError, errorBody, errorResponse, fromZod, invalid, malformed } from "./error-contract";

describe("error contract", () => {
  it("builds the body with fields only when some field is at fault", () => {
    expect(errorBody("not_found", "no such thing")).toEqual({ error: { code: "not_found", message: "no such thing" } });
    expect(errorBody("not_found", "no such thing", [])).toEqual({ error: { code: "not_found", message: "no such thing" } });
    expect(errorBody("invalid", "bad", [{ path: "a", message: "m" }])).toEqual({
      error: { code: "invalid", message: "bad", fields: [{ path: "a", message: "m" }] },
    });
  });

  it("malformed is 400 and invalid 422, the message naming the first field", () => {
    const m = malformed([
      { path: "region", message: "expected string" },
      { path: "requestId", message: "required" },
    ]);
    expect([m.status, m.code, m.message]).toEqual([400, "malformed", "region: expected string (and 1 more)"]);
    const i = invalid([{ path: "operation", message: "unknown operation" }], "nothing routes it");
    expect([i.status, i.code, i.message, i.fields]).toEqual([422, "invalid", "nothing routes it", [{ path: "operation", message: "unknown operation" }]]);
  });

  it("names every zod issue by path: unknown keys one by one, unions by their closest branch", () => {
    const schema = z.union([z.strictObject({ email: z.string(), password: z.string() }), z.strictObject({ demoEmail: z.string() })]);
    const r = schema.safeParse({ email: "a@b" });
    expect(r.success).toBe(false);
    expect(fromZod(r.error!).fields.map((f) => f.path)).toEqual(["password"]);
    const strict = z.strictObject({ n: z.number() }).safeParse({ n: "1", x: 1, y: 2 });
    expect(fromZod(strict.error!, 422, undefined, ["input"]).toBody()).toMatchObject({
      error: { code: "invalid", fields: [{ path: "input.n" }, { path: "input.x" }, { path: "input.y" }] },
    });
  });

  it("answers with the status, no-store and Retry-After in whole seconds, at least 1", async () => {
    const res = errorResponse(new ContractError("throttled", "wait", [], { retryAfterSeconds: 0.2 }));
    expect([res.status, res.headers.get("retry-after"), res.headers.get("cache-control")]).toEqual([429, "1", "no-store"]);
    expect(await res.json()).toEqual({ error: { code: "throttled", message: "wait" } });
    expect(errorResponse(malformed([])).headers.get("retry-after")).toBeNull();
  });
});
