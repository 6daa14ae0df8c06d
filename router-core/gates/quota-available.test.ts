import { describe, expect, it } from "vitest";
import type { TQuotaView } from "../types";
import { gateInput } from "./gate-input.fixture";
import { quotaAvailable } from "./quota-available";

const NOW = 1_750_000_000_000;
const quota = (extra: Partial<TQuotaView>): TQuotaView => ({ remainingMinute: 10, remainingDay: 100, resetAt: NOW + 42_500, ...extra });
const check = (q: TQuotaView | undefined) => quotaAvailable(gateInput({ quota: q, now: NOW }));

describe("quota_available", () => {
  it("passes untracked, unlimited and remaining quota", () => {
    expect(check(undefined)).toEqual({ gate: "quota_available", passed: true, detail: "no quota tracked for provider" });
    expect(check(quota({ remainingMinute: null, remainingDay: null })).detail).toBe("quota unlimited");
    expect(check(quota({}))).toEqual({ gate: "quota_available", passed: true, detail: "quota remaining" });
    expect(check(quota({ remainingMinute: null, remainingDay: 1 })).passed).toBe(true);
  });

  it("fails at zero remaining, per minute before per day, with the time to the reset rounded up", () => {
    expect(check(quota({ remainingMinute: 0 }))).toEqual({
      gate: "quota_available",
      passed: false,
      detail: "per-minute quota exhausted, resets in 43s",
    });
    expect(check(quota({ remainingMinute: 0, remainingDay: 0 })).detail).toBe("per-minute quota exhausted, resets in 43s");
    expect(check(quota({ remainingDay: 0, resetAt: null }))).toEqual({ gate: "quota_available", passed: false, detail: "daily quota exhausted" });
    expect(check(quota({ remainingMinute: -3, resetAt: NOW - 1_000 })).detail).toBe("per-minute quota exhausted, resets in 0s");
  });

  it("names a catalogued quota's window in the detail", () => {
    const window = "100 requests per 3600 s";
    expect(check(quota({ remainingMinute: 0, remainingDay: null, window })).detail).toBe("100 requests per 3600 s quota exhausted, resets in 43s");
    expect(check(quota({ remainingMinute: 0, remainingDay: null, resetAt: null, window })).detail).toBe("100 requests per 3600 s quota exhausted");
  });

  it("passes a recovering provider with its share ceiling, and fails a ceiling of 0", () => {
    expect(check(quota({ shareCeiling: 0.375 }))).toEqual({
      gate: "quota_available",
      passed: true,
      detail: "quota recovering from exhaustion: share capped at 37.5%",
    });
    expect(check(quota({ remainingMinute: null, remainingDay: null, shareCeiling: 0.5 })).detail).toBe("quota recovering from exhaustion: share capped at 50%");
    expect(check(quota({ shareCeiling: 1 })).detail).toBe("quota remaining");
    expect(check(quota({ shareCeiling: 0 }))).toEqual({
      gate: "quota_available",
      passed: false,
      detail: "quota recovering: share ceiling 0 until the reset",
    });
    // Exhaustion is reported first: it says when the reset comes.
    expect(check(quota({ remainingMinute: 0, shareCeiling: 0 })).detail).toBe("per-minute quota exhausted, resets in 43s");
  });
});
