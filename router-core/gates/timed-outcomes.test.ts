import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { circuitBreakerClosed } from "./circuit-breaker-closed";
import { isConstantOutcome, validFrom, validUntil, type TGateInput, type TGateOutcome } from "./gate";
import { gateInput, metricSnapshot } from "./gate-input.fixture";
import { metricFreshOrSafeDefault } from "./metric-fresh-or-safe-default";
import { quotaAvailable } from "./quota-available";

const NOW = 1_750_000_000_000;

const metrics = (updatedAt: number) => metricSnapshot({ updatedAt });

/** The gate inputs at time t for each time-dependent case, built as evaluate.ts builds them. */
const cases: Record<string, (at: number, t: number) => TGateInput> = {
  "breaker open, next attempt at `at`": (at, t) => gateInput({ breaker: { state: "open", probeAvailable: false, nextAttemptAt: at }, now: t }),
  "per-minute quota exhausted, reset at `at`": (at, t) => gateInput({ quota: { remainingMinute: 0, remainingDay: null, resetAt: at }, now: t }),
  "daily quota exhausted, reset at `at`": (at, t) => gateInput({ quota: { remainingMinute: 3, remainingDay: 0, resetAt: at }, now: t }),
  "metrics from `at`, stale": (at, t) =>
    gateInput({ metrics: metrics(at), metricAgeSeconds: (t - at) / 1000, stale: true, maxMetricAgeSeconds: 0, stalePolicy: "exclude", now: t }),
};
const gates: Record<string, (i: TGateInput) => TGateOutcome> = {
  "breaker open, next attempt at `at`": circuitBreakerClosed,
  "per-minute quota exhausted, reset at `at`": quotaAvailable,
  "daily quota exhausted, reset at `at`": quotaAvailable,
  "metrics from `at`, stale": metricFreshOrSafeDefault,
};

describe("timed gate outcomes", () => {
  for (const [name, input] of Object.entries(cases)) {
    it(`${name}: the outcome reads the same throughout its window`, () => {
      fc.assert(
        fc.property(
          fc.integer({ min: -200_000, max: 200_000 }),
          fc.integer({ min: 0, max: 200_000 }),
          fc.double({ min: 0, max: 1, noNaN: true }),
          (offset, ageMs, w) => {
            const gate = gates[name]!;
            // Countdowns look ahead to `at`; the metric age looks back to it.
            const at = name.startsWith("metrics") ? NOW - ageMs : NOW + offset;
            const o = gate(input(at, NOW));
            expect(isConstantOutcome(o)).toBe(false);
            const from = validFrom(o)!;
            const until = validUntil(o)!;
            expect(from).toBeLessThanOrEqual(NOW);
            expect(until).toBeGreaterThanOrEqual(NOW);
            const inside = [from, Number.isFinite(until) ? until : NOW + 10_000_000, Math.round(from + w * (Math.min(until, NOW + 10_000_000) - from))];
            for (const t of inside) expect(gate(input(at, t)).detail).toBe(o.detail);
          },
        ),
        { numRuns: 400 },
      );
    });
  }

  it("pass outcomes and fixed failures are constants; open without a next attempt too", () => {
    expect(isConstantOutcome(circuitBreakerClosed(gateInput({ breaker: { state: "closed", probeAvailable: false } })))).toBe(true);
    expect(isConstantOutcome(circuitBreakerClosed(gateInput({ breaker: { state: "open", probeAvailable: false } })))).toBe(true);
    expect(isConstantOutcome(quotaAvailable(gateInput({ quota: { remainingMinute: 5, remainingDay: null, resetAt: NOW } })))).toBe(true);
    // The constant mark is invisible to JSON.
    expect(JSON.stringify(circuitBreakerClosed(gateInput()))).toBe(
      '{"gate":"circuit_breaker_closed","passed":true,"detail":"no breaker state yet; treated as closed"}',
    );
  });
});
