import { describe, expect, it } from "vitest";
import {
  consumeQuota,
  createQuotaState,
  observeThrottle,
  preallocateQuota,
  quotaRamp,
  quotaView,
  reconfigureQuota,
  restoreQuotaState,
  type TQuotaState,
} from "./quota-tracker";

const SEC = 1_000;
const MIN = 60 * SEC;
const DAY = 24 * 60 * MIN;
const T = Date.UTC(2026, 5, 14, 11, 59, 0);

const consume = (s: TQuotaState, now: number, n: number) => consumeQuota(s, now, n);

describe("quota table (the token-gateway article's section 5, docs/references.md)", () => {
  it("tracks used, remaining and reset per minute and per day", () => {
    let s = createQuotaState("A", { per_minute: 1000, per_day: 50_000 }, T);
    s = consume(s, T + 10 * SEC, 342);
    expect(quotaView(s, T + 20 * SEC)).toEqual({ remainingMinute: 658, remainingDay: 49_658, resetAt: Date.UTC(2026, 5, 14, 12, 0) });
    // The minute window rolls at 12:00; the day keeps counting.
    expect(quotaView(s, T + MIN)).toEqual({ remainingMinute: 1000, remainingDay: 49_658, resetAt: Date.UTC(2026, 5, 14, 12, 1) });
  });

  it("is exhausted at the limit until the window resets", () => {
    let s = createQuotaState("B", { per_minute: 800 }, T);
    s = consume(s, T + SEC, 800);
    expect(quotaView(s, T + 2 * SEC)).toEqual({ remainingMinute: 0, remainingDay: null, resetAt: T + MIN });
    expect(quotaView(s, T + MIN).remainingMinute).toBe(800);
  });

  it("reports unlimited as null", () => {
    const s = createQuotaState("C", {}, T);
    expect(quotaView(s, T)).toEqual({ remainingMinute: null, remainingDay: null, resetAt: null });
  });

  it("honours day_reset_offset_seconds", () => {
    const s = consume(createQuotaState("D", { per_day: 10, day_reset_offset_seconds: 7 * 3600 }, T), T, 10);
    expect(quotaView(s, T).resetAt).toBe(Date.UTC(2026, 5, 15, 7, 0));
  });

  it("a 429 with Retry-After marks the provider exhausted until then, whatever the counters say", () => {
    let s = createQuotaState("A", { per_minute: 1000 }, T);
    s = observeThrottle(s, T + SEC, 90);
    expect(quotaView(s, T + 2 * SEC)).toEqual({ remainingMinute: 0, remainingDay: null, resetAt: T + 91 * SEC });
    expect(quotaView(s, T + 91 * SEC).remainingMinute).toBe(1000);
    // Without Retry-After: blocked to the next minute boundary; an unlimited provider reports 0 too.
    const u = observeThrottle(createQuotaState("U", {}, T), T + SEC, null);
    expect(quotaView(u, T + 2 * SEC)).toEqual({ remainingMinute: 0, remainingDay: null, resetAt: T + MIN });
  });

  it("validates options with the option's name and value", () => {
    expect(() => createQuotaState("A", { per_minute: -1 }, T)).toThrow(new RangeError("per_minute must be in [0, inf), got -1"));
    expect(() => createQuotaState("A", { preallocation_fraction: 2 }, T)).toThrow("preallocation_fraction must be in [0, 1], got 2");
    expect(() => consumeQuota(createQuotaState("A", {}, T), T, 0.5)).toThrow("units must be an integer, got 0.5");
    expect(() => observeThrottle(createQuotaState("A", {}, T), T, -3)).toThrow("retryAfterSeconds must be in [0, inf), got -3");
  });
});

describe("pre-allocation before a reset", () => {
  // A day quota exhausted in the morning resets at midnight; pre-allocation starts 5 min before.
  const morning = Date.UTC(2026, 5, 14, 9, 0);
  const midnight = Date.UTC(2026, 5, 15, 0, 0);
  const exhausted = () => consume(createQuotaState("A", { per_minute: 1000, per_day: 100_000, preallocation_fraction: 0.2 }, morning), morning, 100_000);

  it("ramps: exhausted → preallocating → recovering → available", () => {
    const s = exhausted();
    expect(quotaRamp(s, midnight - 6 * MIN)).toEqual({ phase: "exhausted", shareCeiling: 0, preallocatable: 0, resetAt: midnight });
    expect(quotaRamp(s, midnight - 5 * MIN)).toMatchObject({ phase: "preallocating", shareCeiling: 0, preallocatable: 0 });
    // Half way through the 5 minutes, half of 20% of the first minute's 1000 may be promised.
    expect(quotaRamp(s, midnight - 150 * SEC)).toMatchObject({ phase: "preallocating", preallocatable: 100, resetAt: midnight });
    expect(quotaRamp(s, midnight)).toMatchObject({ phase: "recovering", shareCeiling: 0.2 });
    expect(quotaRamp(s, midnight + 150 * SEC).shareCeiling).toBeCloseTo(0.6, 12);
    expect(quotaRamp(s, midnight + 5 * MIN)).toEqual({ phase: "available", shareCeiling: 1, preallocatable: 0, resetAt: null });
  });

  it("promised units are granted at most up to the reserve and charged to the new window", () => {
    let s = exhausted();
    const first = preallocateQuota(s, midnight - 150 * SEC, 80);
    expect(first.granted).toBe(80);
    const second = preallocateQuota(first.state, midnight - 150 * SEC, 80);
    expect(second.granted).toBe(20);
    s = second.state;
    expect(preallocateQuota(s, midnight - 10 * MIN, 5).granted).toBe(0);
    // Just after the reset the view carries the recovery ramp's ceiling for decide() to apply.
    expect(quotaView(s, midnight + SEC)).toEqual({
      remainingMinute: 900,
      remainingDay: 99_900,
      resetAt: midnight + MIN,
      shareCeiling: quotaRamp(s, midnight + SEC).shareCeiling,
    });
    expect(quotaView(s, midnight + SEC).shareCeiling).toBeGreaterThan(0.2);
    expect(quotaView(s, midnight + SEC).shareCeiling).toBeLessThan(0.21);
    s = consume(s, midnight + SEC, 1);
    expect(s.preallocated).toBeNull();
    expect(s.minute.used).toBe(101);
  });

  it("a minute-window exhaustion ramps over at most that minute", () => {
    const s = consume(createQuotaState("B", { per_minute: 800, preallocation_fraction: 0.5 }, T), T, 800);
    expect(quotaRamp(s, T + 30 * SEC)).toMatchObject({ phase: "preallocating", preallocatable: 200 });
    expect(quotaRamp(s, T + 90 * SEC).shareCeiling).toBeCloseTo(0.75, 12);
  });

  it("no exhaustion means no constraint", () => {
    expect(quotaRamp(createQuotaState("C", { per_minute: 5 }, T), T)).toEqual({
      phase: "available",
      shareCeiling: 1,
      preallocatable: 0,
      resetAt: null,
    });
  });
});

describe("serialisation and reconfiguration", () => {
  it("round-trips through JSON", () => {
    const s = observeThrottle(consume(createQuotaState("A", { per_minute: 10, per_day: 100 }, T), T, 10), T, 30);
    const restored = restoreQuotaState(JSON.parse(JSON.stringify(s)));
    expect(restored).toEqual(s);
    expect(quotaView(restored, T + 5 * SEC)).toEqual(quotaView(s, T + 5 * SEC));
  });

  it("restore names the field that does not fit", () => {
    const json = JSON.parse(JSON.stringify(createQuotaState("A", {}, T)));
    expect(() => restoreQuotaState({ ...json, minute: { windowStart: T, used: "x" } })).toThrow('quota.minute.used must be a finite number, got "x"');
  });

  it("keeps counters when limits change", () => {
    let s = consume(createQuotaState("A", { per_minute: 1000 }, T), T, 600);
    s = reconfigureQuota(s, { per_minute: 500 }, T);
    expect(quotaView(s, T)).toMatchObject({ remainingMinute: 0, resetAt: T + MIN });
    expect(quotaRamp(s, T).phase).toBe("preallocating");
    expect(quotaView(s, T + DAY).remainingMinute).toBe(500);
  });
});
