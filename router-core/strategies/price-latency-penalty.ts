import type { TPriceEvidence } from "../decision/record";
import { basePrice, priceWeights } from "./price-weighted";
import { drawWeighted, type RoutingStrategy } from "./strategy";

/** the token-gateway article's floor: a slow provider keeps 30% of its price weight so it is never starved. */
const PENALTY_FLOOR = 0.3;

/** clamp(1 − (p99 − p99_baseline) / p99_baseline, 0.3, 1.0), exactly as the token-gateway article (docs/references.md) writes it. */
export function latencyPenalty(p99Ms: number | null, p99BaselineMs: number): number {
  // No p99 yet means no evidence of slowness; sample-size confidence is handled elsewhere.
  if (p99Ms === null || !(p99BaselineMs > 0)) return 1;
  const f = 1 - (p99Ms - p99BaselineMs) / p99BaselineMs;
  return f < PENALTY_FLOOR ? PENALTY_FLOOR : f > 1 ? 1 : f;
}

/**
 * the token-gateway article (docs/references.md) algorithm 2: Weight_i = (BasePrice / Price_i) × clamp(1 − (p99_i − p99_baseline) /
 * p99_baseline, 0.3, 1.0). p99_baseline is the factor list's p99_baseline_ms, or else the
 * lowest p99 among the eligible providers.
 */
export const priceLatencyPenaltyStrategy: RoutingStrategy = {
  name: "price_latency_penalty",
  select({ eligible, u, p99BaselineMs, probabilities }) {
    let baseline = p99BaselineMs ?? Infinity;
    if (p99BaselineMs === undefined) {
      for (const c of eligible) {
        const p99 = c.metrics?.p99Ms;
        if (p99 != null && p99 < baseline) baseline = p99;
      }
    }
    const base = basePrice(eligible);
    const weights = priceWeights(eligible, base);
    const rows = eligible.map((c, i) => {
      const p99Ms = c.metrics?.p99Ms ?? null;
      const penalty = latencyPenalty(p99Ms, baseline);
      weights[i] = weights[i]! * penalty;
      return { provider: c.record.provider, price: c.info.costPerRequest, p99Ms, penalty, weight: weights[i]! };
    });
    const known = Number.isFinite(baseline);
    const evidence: TPriceEvidence = {
      strategy: "price_latency_penalty",
      basePrice: base,
      p99BaselineMs: known ? baseline : null,
      p99BaselineFrom: p99BaselineMs !== undefined ? "factor_list" : known ? "lowest_eligible_p99" : null,
      penaltyFloor: PENALTY_FLOOR,
      rows,
    };
    return { index: drawWeighted(eligible, weights, u, probabilities), reasonCode: "price_latency_penalty", evidence };
  },
};
