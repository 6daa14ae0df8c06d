import { describe, expect, it } from "vitest";
import { candidate, input, probabilities } from "./candidate.fixture";
import { latencyPenalty, priceLatencyPenaltyStrategy } from "./price-latency-penalty";

describe("price_latency_penalty (the token-gateway article's algorithm 2, docs/references.md)", () => {
  // Weight_i = (BasePrice / Price_i) × clamp(1 − (p99_i − p99_baseline) / p99_baseline, 0.3, 1.0)
  const eligible = () => [candidate("a", { cost: 0.02, p99Ms: 600 }), candidate("b", { cost: 0.01, p99Ms: 1000 }), candidate("c", { cost: 0.04, p99Ms: 400 })];

  it("clamps the penalty to [0.3, 1]", () => {
    expect(latencyPenalty(600, 500)).toBeCloseTo(0.8, 15);
    expect(latencyPenalty(1000, 500)).toBe(0.3);
    expect(latencyPenalty(400, 500)).toBe(1);
    expect(latencyPenalty(850, 500)).toBeCloseTo(0.3, 15);
    expect(latencyPenalty(null, 500)).toBe(1);
  });

  it("with p99_baseline_ms = 500: weights 0.5×0.8, 1×0.3, 0.25×1", () => {
    const e = eligible();
    const { reasonCode } = priceLatencyPenaltyStrategy.select(input(e, { p99BaselineMs: 500 }));
    expect(reasonCode).toBe("price_latency_penalty");
    // 0.4, 0.3, 0.25, sum 0.95.
    expect(probabilities(e)).toEqual([0.4 / 0.95, 0.3 / 0.95, 0.25 / 0.95].map((x) => expect.closeTo(x, 15)));
    expect(probabilities(e)).toEqual([0.421053, 0.315789, 0.263158].map((x) => expect.closeTo(x, 6)));
  });

  it("without a baseline, the lowest eligible p99 (400) is the baseline", () => {
    const e = eligible();
    priceLatencyPenaltyStrategy.select(input(e));
    // a: 0.5 × (1 − 200/400) = 0.25; b: 1 × clamp(1 − 600/400) = 0.3; c: 0.25 × 1 = 0.25; sum 0.8.
    expect(probabilities(e)).toEqual([0.3125, 0.375, 0.3125].map((x) => expect.closeTo(x, 15)));
  });

  it("draws by cumulative weight", () => {
    const e = eligible();
    const pick = (u: number) => priceLatencyPenaltyStrategy.select(input(e, { u, p99BaselineMs: 500 })).index;
    expect([pick(0.42), pick(0.43), pick(0.73), pick(0.74)]).toEqual([0, 1, 1, 2]);
  });

  it("records the evidence behind each weight: price, base price, p99, baseline and its source, penalty", () => {
    const e = eligible();
    const withBaseline = priceLatencyPenaltyStrategy.select(input(e, { p99BaselineMs: 500 })).evidence!;
    expect(withBaseline).toMatchObject({
      strategy: "price_latency_penalty",
      basePrice: 0.01,
      p99BaselineMs: 500,
      p99BaselineFrom: "factor_list",
      penaltyFloor: 0.3,
    });
    expect(withBaseline.rows).toEqual([
      { provider: "a", price: 0.02, p99Ms: 600, penalty: expect.closeTo(0.8, 12), weight: expect.closeTo(0.4, 12) },
      { provider: "b", price: 0.01, p99Ms: 1000, penalty: 0.3, weight: expect.closeTo(0.3, 12) },
      { provider: "c", price: 0.04, p99Ms: 400, penalty: 1, weight: expect.closeTo(0.25, 12) },
    ]);
    expect(priceLatencyPenaltyStrategy.select(input(e)).evidence).toMatchObject({ p99BaselineMs: 400, p99BaselineFrom: "lowest_eligible_p99" });
    const unmeasured = [candidate("a", { cost: 0.02, p99Ms: null }), candidate("b", { cost: 0.01, p99Ms: null })];
    expect(priceLatencyPenaltyStrategy.select(input(unmeasured)).evidence).toMatchObject({
      p99BaselineMs: null,
      p99BaselineFrom: null,
      rows: [expect.objectContaining({ p99Ms: null, penalty: 1 }), expect.objectContaining({ p99Ms: null, penalty: 1 })],
    });
  });
});
