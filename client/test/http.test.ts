import { describe, expect, it } from "vitest";
import { parseRetryAfter, retryDelay } from "../src/http";

describe("retry timing", () => {
  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(parseRetryAfter("2")).toBe(2_000);
    expect(parseRetryAfter("0.5")).toBe(500);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter("soon")).toBeNull();
  });

  it("waits Retry-After plus at most one base interval, else full jitter under a capped exponential", () => {
    const backoff = { baseMs: 50, capMs: 400 };
    expect(retryDelay(1, 1_000, backoff, () => 0)).toBe(1_000);
    expect(retryDelay(1, 1_000, backoff, () => 0.999)).toBeCloseTo(1_049.95, 5);
    expect(retryDelay(1, null, backoff, () => 0.999)).toBeCloseTo(49.95, 5);
    expect(retryDelay(3, null, backoff, () => 0.5)).toBe(100);
    expect(retryDelay(10, null, backoff, () => 1)).toBe(400);
    expect(retryDelay(10, null, backoff, () => 0)).toBe(0);
  });
});
