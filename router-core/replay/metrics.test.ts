import { describe, expect, it } from "vitest";
import { countOscillations, countSwitches, degradedMinutes, minuteLeaders, shiftAwayMinutes, successRate } from "./metrics";

describe("replay metrics", () => {
  it("success rate is successes over requests, 0 without requests", () => {
    expect(successRate(995, 1000)).toBe(0.995);
    expect(successRate(0, 0)).toBe(0);
  });

  it("a degraded minute has more than 5% of its traffic on a degraded provider-region", () => {
    // 30/600 = 5% exactly is not more than 5%; 31/600 is; an empty minute never counts.
    expect(degradedMinutes([30, 31, 600, 0, 0], [600, 600, 600, 600, 0])).toBe(2);
  });

  it("the leader is the provider serving most; ties and empty minutes keep the previous one", () => {
    expect(
      minuteLeaders([
        [10, 0, 0],
        [5, 5, 0],
        [2, 8, 0],
        [0, 0, 0],
        [4, 4, 1],
      ]),
    ).toEqual([0, 0, 1, 1, 1]);
  });

  it("switches count every leader change", () => {
    expect(countSwitches([0, 0, 1, 1, 0, 2, 2])).toBe(3);
    expect(countSwitches([])).toBe(0);
  });

  it("an oscillation is a change reversed within 5 minutes", () => {
    // 0→1 at minute 1 reversed at minute 3: one oscillation; the change back is not reversed.
    expect(countOscillations([0, 1, 1, 0, 0, 0, 0, 0, 0])).toBe(1);
    // 0→1 at minute 1 reversed at minute 7: 6 minutes later, not an oscillation.
    expect(countOscillations([0, 1, 1, 1, 1, 1, 1, 0])).toBe(0);
    // Exactly 5 minutes later still counts.
    expect(countOscillations([0, 1, 1, 1, 1, 1, 0])).toBe(1);
    // Flapping 0,1,0,1: each of the three changes is reversed within the window except the last.
    expect(countOscillations([0, 1, 0, 1])).toBe(2);
    // A move to a third provider is not a reversal.
    expect(countOscillations([0, 1, 2, 2])).toBe(0);
  });

  it("shift-away minutes run to the end of the first slot at or below 20%", () => {
    const share = [1, 1, 1, 0.9, 0.5, 0.2, 0.1];
    // Start at slot 2 (10 s slots): slot 5 is the first ≤ 20%, so 4 slots = 40 s.
    expect(shiftAwayMinutes(share, 2, 10)).toBeCloseTo(40 / 60, 12);
    expect(shiftAwayMinutes([1, NaN, 0.5], 0, 10)).toBeNull();
    expect(shiftAwayMinutes([1, NaN, 0.2], 0, 60)).toBe(3);
  });
});
