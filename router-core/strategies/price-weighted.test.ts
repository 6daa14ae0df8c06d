import { describe, expect, it } from "vitest";
import { candidate, input, probabilities } from "./candidate.fixture";
import { priceWeights, priceWeightedStrategy } from "./price-weighted";

describe("price_weighted (the token-gateway article's algorithm 1, docs/references.md)", () => {
  // Prices 0.02, 0.01, 0.04: BasePrice = 0.01, weights 0.5, 1, 0.25, sum 1.75.
  const eligible = () => [candidate("a", { cost: 0.02 }), candidate("b", { cost: 0.01 }), candidate("c", { cost: 0.04 })];

  it("weights BasePrice / Price_i with the cheapest eligible price as base", () => {
    expect(priceWeights(eligible())).toEqual([0.5, 1, 0.25]);
  });

  it("selects with probability weight / sum, by cumulative weight of the draw", () => {
    const e = eligible();
    const pick = (u: number) => priceWeightedStrategy.select(input(e, { u }));
    expect(pick(0.5)).toMatchObject({ index: 1, reasonCode: "price_weighted" });
    expect(pick(0.5).evidence).toEqual({
      strategy: "price_weighted",
      basePrice: 0.01,
      p99BaselineMs: null,
      p99BaselineFrom: null,
      penaltyFloor: null,
      rows: [
        { provider: "a", price: 0.02, p99Ms: null, penalty: null, weight: 0.5 },
        { provider: "b", price: 0.01, p99Ms: null, penalty: null, weight: 1 },
        { provider: "c", price: 0.04, p99Ms: null, penalty: null, weight: 0.25 },
      ],
    });
    expect(probabilities(e)).toEqual([0.5 / 1.75, 1 / 1.75, 0.25 / 1.75].map((x) => expect.closeTo(x, 15)));
    expect(probabilities(e)).toEqual([0.285714, 0.571429, 0.142857].map((x) => expect.closeTo(x, 6)));
    // Cumulative: a [0, 0.2857), b [0.2857, 0.8571), c [0.8571, 1).
    expect(pick(0).index).toBe(0);
    expect(pick(0.28).index).toBe(0);
    expect(pick(0.29).index).toBe(1);
    expect(pick(0.86).index).toBe(2);
    expect(pick(0.999999).index).toBe(2);
  });

  it("gives free providers the traffic", () => {
    expect(priceWeights([candidate("a", { cost: 0 }), candidate("b", { cost: 0.01 }), candidate("c", { cost: 0 })])).toEqual([1, 0, 1]);
  });
});
