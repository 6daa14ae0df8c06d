import { describe, expect, it } from "vitest";
import { candidate, input, probabilities } from "./candidate.fixture";
import { weightedScoreStrategy } from "./weighted-score";

describe("weighted_score (paper)", () => {
  it("draws by the controller's shares renormalised over the eligible", () => {
    // c is not eligible: a 0.6 and b 0.2 renormalise to 0.75 and 0.25.
    const e = [candidate("a"), candidate("b")];
    const shares = { a: 0.6, b: 0.2, c: 0.2 };
    expect(weightedScoreStrategy.select(input(e, { shares, u: 0.74 }))).toEqual({ index: 0, reasonCode: "share_weighted" });
    expect(probabilities(e)).toEqual([0.75, 0.25].map((x) => expect.closeTo(x, 15)));
    expect(weightedScoreStrategy.select(input(e, { shares, u: 0.76 })).index).toBe(1);
  });

  it("ignores negative and missing shares", () => {
    const e = [candidate("a"), candidate("b"), candidate("c")];
    weightedScoreStrategy.select(input(e, { shares: { a: -1, b: 0.5 } }));
    expect(probabilities(e)).toEqual([0, 1, 0]);
  });

  it("without usable shares sends everything to the first eligible provider", () => {
    const cases: (Record<string, number> | null | undefined)[] = [null, undefined, {}, { c: 1 }];
    for (const shares of cases) {
      const e = [candidate("a"), candidate("b")];
      expect(weightedScoreStrategy.select(input(e, { shares }))).toEqual({ index: 0, reasonCode: "initial_share_primary" });
      expect(probabilities(e)).toEqual([1, 0]);
    }
  });
});
