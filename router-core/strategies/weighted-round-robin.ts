import { drawWeighted, scratchWeights, shareOf, type RoutingStrategy } from "./strategy";

const GOLDEN = (Math.sqrt(5) - 1) / 2;

/**
 * the token-gateway article (docs/references.md) algorithm 3. Weights are the controller's shares (equal when there are none). The
 * n-th request takes position frac(n × golden ratio) on the cumulative weights: consecutive
 * positions are spread evenly, so each provider's count tracks its weight within a few requests
 * without a stored cursor per provider. Without a sequence number the decision's draw is used.
 * Breakers are the hard gate here, as in the seed: an open circuit is simply not eligible.
 */
export const weightedRoundRobinStrategy: RoutingStrategy = {
  name: "weighted_round_robin",
  select(input) {
    const { eligible, shares, u, sequence, probabilities } = input;
    const position = sequence === undefined ? u : (sequence * GOLDEN) % 1;
    const weights = scratchWeights(eligible.length);
    for (let i = 0; i < eligible.length; i++) {
      const s = shares ? shareOf(input, eligible[i]!) : 1;
      weights[i] = s !== undefined && s > 0 ? s : 0;
    }
    let index = drawWeighted(eligible, weights, position, probabilities);
    if (index < 0) index = drawWeighted(eligible, weights.fill(1), position, probabilities);
    return { index, reasonCode: "weighted_round_robin" };
  },
};
