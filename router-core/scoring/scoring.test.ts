import { describe, expect, it } from "vitest";
import { latencyPenalty } from "../strategies/price-latency-penalty";
import { priceWeights } from "../strategies/price-weighted";
import type { TCandidateWork } from "../decision/record";
import type { TMetricSnapshot } from "../types";
import { scoreInto, type TContribution } from "./contributions";
import { checkGuardrails } from "./guardrails";
import { FAILURE_RATE_AT_ZERO, INDEX_SPECS, failureLowerBound, scoreIndex } from "./indices";

/** The paper's representative weights (section 4.8). */
const weights = [
  { spec: INDEX_SPECS.completion_rate_5m, weight: 0.4, slo: null },
  { spec: INDEX_SPECS.p95_latency_5m, weight: 0.25, slo: null },
  { spec: INDEX_SPECS.cost_per_request, weight: 0.15, slo: null },
  { spec: INDEX_SPECS.recent_incident_penalty, weight: 0.1, slo: null },
  { spec: INDEX_SPECS.confidence_from_sample, weight: 0.1, slo: null },
];

const snap = (completionRate: number, p95Ms: number, confidence: number): TMetricSnapshot => ({
  sampleCount: 500,
  completionRate,
  errorRate: 0,
  p95Ms,
  p99Ms: p95Ms * 2,
  recentIncidents: 0,
  confidence,
  updatedAt: 1,
  scope: "region",
});

describe("Table 5 shape", () => {
  // Table 5's indices, with its >100 values capped at 100 (our indices are bounded). The table's
  // final scores (96.5, 88.2, 81.4) do not follow from its own indices and weights, so only the
  // shape is checked: per-factor indices reproduce, contributions add up, rank A > B > C.
  const norm = { minP95: 100, minP99: 200, minCost: 0.01 };
  const rows = {
    provider_A: { m: snap(1.0, 100, 1.0), cost: 0.01 / 0.95 },
    provider_B: { m: snap(0.98, 100 / 0.92, 0.98), cost: 0.01 },
    provider_C: { m: snap(0.9, 100 / 0.8, 0.88), cost: 0.01 / 0.85 },
  };
  const scored = Object.entries(rows).map(([name, r]) => {
    const out: TContribution[] = [];
    const score = scoreInto(out, weights, r.m, r.cost, norm, "fresh", 0, null);
    return { name, out, score };
  });

  it("reproduces the per-factor indices; completion on the error-budget scale", () => {
    // Completion is no longer 100 × rate (Table 5's 98 and 90): 2% failures on 500 samples have a
    // Wilson lower bound of 1.2%, index 100 × (1 − 0.012/0.03) = 60.0; 10% failures are past 3%: 0.
    expect(scored[1]!.out.map((c) => Number(c.index.toFixed(2)))).toEqual([60.02, 92, 100, 100, 98]);
    expect(scored[2]!.out.map((c) => Number(c.index.toFixed(6)))).toEqual([0, 80, 85, 100, 88]);
  });

  it("ranks A > B > C with scores that are exactly the sum of contributions", () => {
    for (const s of scored) expect(s.score).toBe(s.out.reduce((a, c) => a + c.value, 0));
    expect(scored.map((s) => s.name)).toEqual(["provider_A", "provider_B", "provider_C"]);
    expect(scored[0]!.score).toBeGreaterThan(scored[1]!.score);
    expect(scored[1]!.score).toBeGreaterThan(scored[2]!.score);
    expect(scored.map((s) => Number(s.score.toFixed(2)))).toEqual([99.25, 81.81, 51.55]);
  });
});

describe("rate indices (error-budget scale, Wilson lower bound)", () => {
  const norm = { minP95: 1, minP99: 1, minCost: 1 };
  it("lower bound of the failure rate, hand-computed", () => {
    // f = 0.005, n = 1500, z = 1.6449: (f + z²/2n − z·sqrt(f(1−f)/n + z²/4n²)) / (1 + z²/n) = 0.0027685
    expect(failureLowerBound(0.005, 1500)).toBeCloseTo(0.0027685, 6);
    expect(failureLowerBound(0, 15)).toBe(0);
    expect(failureLowerBound(0.5, 0)).toBe(0);
  });
  it("completion: 100 × (1 − L/0.03), clamped; noise small, a 15% drop decisive", () => {
    expect(scoreIndex("completion_rate_5m", 0.995, norm, 1500)).toBeCloseTo(100 * (1 - 0.002769 / FAILURE_RATE_AT_ZERO), 2);
    const gap = scoreIndex("completion_rate_5m", 0.995, norm, 1500) - scoreIndex("completion_rate_5m", 0.993, norm, 1500);
    expect(0.45 * gap).toBeLessThan(3.5);
    expect(scoreIndex("completion_rate_5m", 0.85, norm, 1500)).toBe(0);
    expect(scoreIndex("completion_rate_5m", 1, norm, 15)).toBe(100);
    expect(scoreIndex("error_rate_5m", 0.005, norm, 1500)).toBe(scoreIndex("completion_rate_5m", 0.995, norm, 1500));
  });
});

describe("guardrails", () => {
  it("measures violations as relative excess", () => {
    const g = checkGuardrails({ max_p95_ms: 200, max_cost_per_request: 0.01, min_confidence: 0.5 }, 300, 0.015, 0.25);
    expect(g.passed).toBe(false);
    expect(g.violations).toHaveLength(3);
    expect(g.excess).toBeCloseTo(0.5 + 0.5 + 0.5, 12);
    expect(checkGuardrails({ max_p95_ms: 200 }, null, 1, 0).passed).toBe(true);
  });
});

describe("the token-gateway article's formulas (docs/references.md)", () => {
  const work = (cost: number) => ({ info: { costPerRequest: cost } }) as TCandidateWork;

  it("price_weighted: BasePrice / Price with the cheapest as base", () => {
    expect(priceWeights([work(0.02), work(0.01), work(0.04)])).toEqual([0.5, 1, 0.25]);
    expect(priceWeights([work(0), work(0.01)])).toEqual([1, 0]);
  });

  it("price_latency_penalty: clamp(1 − (p99 − base)/base, 0.3, 1.0)", () => {
    expect(latencyPenalty(500, 500)).toBe(1);
    expect(latencyPenalty(400, 500)).toBe(1);
    expect(latencyPenalty(600, 500)).toBeCloseTo(0.8, 12);
    expect(latencyPenalty(2000, 500)).toBe(0.3);
    expect(latencyPenalty(null, 500)).toBe(1);
  });
});
