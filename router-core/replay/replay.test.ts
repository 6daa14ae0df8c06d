import { describe, expect, it } from "vitest";
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

  it("is deterministic: the same seed gives the same factor-list run", () => {
    const a = runScenario({ scenario: "latency", policy: "factor_list", seed: 7 }).metrics;
    const b = runScenario({ scenario: "latency", policy: "factor_list", seed: 7 }).metrics;
    expect(a).toEqual(b);
  });
});
