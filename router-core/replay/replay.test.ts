import { describe, expect, it } from "vitest";
import { DEFAULT_BREAKER_CORRELATION } from "../control/breaker-correlation";
import { runScenario, scenarioTraffic } from "./suite";

// Full 36,000-request runs: generous timeouts for a shared, busy machine.
describe("replay smoke", { timeout: 60_000 }, () => {
  const traffic = scenarioTraffic(42);

  it("the factor list beats static primary on the outage scenario", () => {
    const stat = runScenario({ scenario: "outage", policy: "static", seed: 42, traffic }).metrics;
    const fl = runScenario({ scenario: "outage", policy: "factor_list", seed: 42, traffic }).metrics;
    expect(stat.successRate).toBeCloseTo(0.663, 2);
    expect(stat.degradedMinutes).toBe(20);
    expect(fl.successRate).toBeGreaterThan(0.96);
    expect(fl.degradedMinutes).toBeLessThanOrEqual(4);
    expect(fl.successRate).toBeGreaterThan(stat.successRate);
  });

  it("correlated regional breakers: the complete outage loses no more than one provider-wide breaker; the EU-only failure stays in EU", () => {
    const off = { breakerCorrelation: { ...DEFAULT_BREAKER_CORRELATION, min_regions: 0 } };
    const outageOn = runScenario({ scenario: "outage", policy: "factor_list", seed: 42, traffic }).metrics;
    const outageOff = runScenario({ scenario: "outage", policy: "factor_list", seed: 42, traffic, wiring: off }).metrics;
    const breaker = runScenario({ scenario: "outage", policy: "breaker", seed: 42, traffic }).metrics;
    expect(outageOn.successes).toBeGreaterThan(outageOff.successes);
    expect(outageOn.successes).toBeGreaterThanOrEqual(breaker.successes);
    // With seed 42, EU's first five failing calls come before any other region calls A: the run presumes a provider-wide
    // failure, NA's probe refutes it, and NA and APAC serve A again (minutes 23-39 as much as with correlation off).
    const regionalOn = runScenario({ scenario: "regional", policy: "factor_list", seed: 42, traffic });
    const regionalOff = runScenario({ scenario: "regional", policy: "factor_list", seed: 42, traffic, wiring: off });
    expect(regionalOn.metrics.successes).toBe(regionalOff.metrics.successes);
    const aDuring = (run: typeof regionalOn) => run.trace.slice(23, 40).reduce((n, m) => n + m.providers[0]!.requests, 0);
    expect(aDuring(regionalOn)).toBeGreaterThan(0.9 * aDuring(regionalOff));
  });

  it("is deterministic: the same seed gives the same factor-list run", () => {
    const a = runScenario({ scenario: "latency", policy: "factor_list", seed: 7 }).metrics;
    const b = runScenario({ scenario: "latency", policy: "factor_list", seed: 7 }).metrics;
    expect(a).toEqual(b);
  });
});
