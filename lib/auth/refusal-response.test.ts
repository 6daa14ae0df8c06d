import { describe, expect, it } from "vitest";
import { ContractError } from "../errors/api-errors";
import { refusalResponse } from "./with-permission";

describe("refusalResponse", () => {
  it("answers a transaction that could not start in time (Prisma P2028) with 503 and Retry-After, not a 500", async () => {
    const p2028 = Object.assign(new Error("Transaction API error: Unable to start a transaction in the given time."), { code: "P2028" });
    const res = refusalResponse(p2028)!;
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("busy");
  });

  it("carries a throttle's wait as Retry-After, whole seconds, at least 1", async () => {
    const res = refusalResponse(new ContractError("throttled", "wait", [], { retryAfterSeconds: 2.2 }))!;
    expect([res.status, res.headers.get("retry-after")]).toEqual([429, "3"]);
    expect(refusalResponse(new ContractError("invalid", "bad"))!.headers.get("retry-after")).toBeNull();
  });

  it("leaves other errors to the caller", () => {
    expect(refusalResponse(new Error("boom"))).toBeNull();
  });
});
