import { describe, expect, it } from "vitest";
import { candidate, input, probabilities } from "./candidate.fixture";
import { priorityFailoverStrategy } from "./priority-failover";

describe("priority_failover (the LLM-routing article's fallback chain, docs/references.md)", () => {
  it("always takes the first eligible provider in priority order, whatever the draw or shares", () => {
    for (const u of [0, 0.5, 0.999]) {
      const e = [candidate("b"), candidate("c")];
      expect(priorityFailoverStrategy.select(input(e, { u, shares: { b: 0, c: 1 } }))).toEqual({ index: 0, reasonCode: "priority_failover" });
      expect(probabilities(e)).toEqual([1, 0]);
    }
  });

  it("shares the first provider's traffic with the next one while its quota recovers", () => {
    const e = [candidate("a", { quota: { remainingMinute: 10, remainingDay: null, resetAt: null, shareCeiling: 0.4 } }), candidate("b"), candidate("c")];
    expect(priorityFailoverStrategy.select(input(e, { u: 0.39 })).index).toBe(0);
    expect(probabilities(e)).toEqual([0.4, 0.6, 0].map((x) => expect.closeTo(x, 15)));
    expect(priorityFailoverStrategy.select(input(e, { u: 0.41 })).index).toBe(1);
  });
});
