import { drawWeighted, type RoutingStrategy } from "./strategy";
import type { TCandidateWork, TPriceEvidence } from "../decision/record";

/**
 * the token-gateway article (docs/references.md) algorithm 1: Weight_i = BasePrice / CurrentPrice_i, probability = weight / sum.
 * BasePrice is the cheapest eligible price, so the cheapest provider has weight 1. Free
 * providers (price 0) have the limit weight: they share the traffic and priced ones get none.
 */
export function priceWeights(eligible: readonly TCandidateWork[], base = basePrice(eligible)): number[] {
  return eligible.map((c) => (base <= 0 ? (c.info.costPerRequest <= 0 ? 1 : 0) : base / c.info.costPerRequest));
}

/** The cheapest eligible price (the token-gateway article's BasePrice). */
export function basePrice(eligible: readonly TCandidateWork[]): number {
  let base = Infinity;
  for (const c of eligible) if (c.info.costPerRequest < base) base = c.info.costPerRequest;
  return base;
}

export const priceWeightedStrategy: RoutingStrategy = {
  name: "price_weighted",
  select({ eligible, u, probabilities }) {
    const base = basePrice(eligible);
    const weights = priceWeights(eligible, base);
    const evidence: TPriceEvidence = {
      strategy: "price_weighted",
      basePrice: base,
      p99BaselineMs: null,
      p99BaselineFrom: null,
      penaltyFloor: null,
      rows: eligible.map((c, i) => ({ provider: c.record.provider, price: c.info.costPerRequest, p99Ms: null, penalty: null, weight: weights[i]! })),
    };
    return { index: drawWeighted(eligible, weights, u, probabilities), reasonCode: "price_weighted", evidence };
  },
};
