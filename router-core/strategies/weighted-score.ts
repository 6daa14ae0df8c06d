import { drawWeighted, scratchWeights, selectFirst, shareOf, type RoutingStrategy } from "./strategy";

/**
 * The paper's strategy. Scores decide where the controller moves shares, tick by tick; per
 * request, traffic follows the current shares, renormalised over the eligible providers, so a
 * gate failure moves traffic at once but score changes move it only at the controller's pace.
 */
export const weightedScoreStrategy: RoutingStrategy = {
  name: "weighted_score",
  select(input) {
    const { eligible, u, probabilities } = input;
    if (input.shares) {
      const weights = scratchWeights(eligible.length);
      for (let i = 0; i < eligible.length; i++) {
        const s = shareOf(input, eligible[i]!);
        weights[i] = s !== undefined && s > 0 ? s : 0;
      }
      const index = drawWeighted(eligible, weights, u, probabilities);
      if (index >= 0) return { index, reasonCode: "share_weighted" };
    }
    return { index: selectFirst(eligible, u, probabilities), reasonCode: "initial_share_primary" };
  },
};
