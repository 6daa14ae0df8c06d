import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ContractError, ERROR_CODES, errorBody, isErrorCode } from "./error-contract";

const BEGIN = "<!-- error-codes:begin";

/** docs/errors.md's table of codes as ERROR_CODES renders it: lowest status first, then by code. */
function errorCodesTable(): string {
  const rows = Object.entries(ERROR_CODES)
    .map(([code, e]) => ({ code, statuses: [e.status, ...("also" in e ? e.also : [])], when: e.when }))
    .sort((a, b) => a.statuses[0]! - b.statuses[0]! || a.code.localeCompare(b.code));
  return ["| status | code | when |", "| --- | --- | --- |", ...rows.map((r) => `| ${r.statuses.join(", ")} | \`${r.code}\` | ${r.when} |`)].join("\n");
}
const END = "<!-- error-codes:end -->";

describe("error codes", () => {
  it("docs/errors.md lists exactly the codes of ERROR_CODES, with their statuses", () => {
    const doc = readFileSync("docs/errors.md", "utf8");
    const start = doc.indexOf(BEGIN);
    const end = doc.indexOf(END);
    expect(start).toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(start);
    const table = doc.slice(doc.indexOf("\n", start) + 1, end).trim();
    // On a mismatch, paste errorCodesTable()'s output between the markers.
    expect(table).toBe(errorCodesTable());
  });

  it("take their status from the code, and only a status the code declares", () => {
    expect(new ContractError("payload_too_large", "too big").status).toBe(413);
    expect(new ContractError("busy", "a what-if is running", [], { status: 409 }).status).toBe(409);
    const err = new ContractError("rate_limited", "slow down", "authorization", { retryAfterSeconds: 0.2 });
    expect([err.status, err.fields, err.headers()]).toEqual([429, [{ path: "authorization", message: "slow down" }], { "retry-after": "1" }]);
    // @ts-expect-error 418 is not a status of `invalid`
    expect(new ContractError("invalid", "x", [], { status: 418 }).status).toBe(418);
    // @ts-expect-error not a declared code
    expect(errorBody("no_such_code", "x").error.code).toBe("no_such_code");
  });

  it("are snake_case and each has a reason", () => {
    for (const [code, e] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(e.when.length).toBeGreaterThan(10);
      expect(isErrorCode(code)).toBe(true);
    }
    expect(isErrorCode("toString")).toBe(false);
  });
});
