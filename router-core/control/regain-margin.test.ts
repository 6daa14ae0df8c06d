import { describe, expect, it } from "vitest";
import { createControllerState, restoreControllerState, stepController, type TControllerCandidate, type TControllerConfig } from "./controller";

const MIN = 60_000;
const config: TControllerConfig = {
  priority: ["A", "B", "C"],
  hysteresis_score_margin: 3.5,
  safety: { max_traffic_shift_per_minute: 0.5, primary_probe_share: 0.01, primary_recovery_cooldown_seconds: 300 },
  min_sample_size: 100,
};
const c = (provider: string, score: number, sampleCount = 1_000): TControllerCandidate => ({ provider, eligible: true, score, sampleCount });

describe("regain gap (hysteresis after recovery)", () => {
  it("a healthy former leader that cannot beat the cheaper leader by the margin is told how far it is", () => {
    // A degrades and C takes over; then A is healthy again but scores 90 against C's 92.
    let s = createControllerState("op", "EU", config, 0);
    s = stepController(s, { candidates: [c("A", 60), c("B", 70), c("C", 92)] }, config, MIN).state;
    expect(s.leader).toBe("C");
    expect(s.displaced).toEqual(["A"]);
    s = stepController(s, { candidates: [c("A", 90), c("B", 70), c("C", 92, 40)] }, config, 2 * MIN).state;
    expect(s.regain).toEqual([{ provider: "A", leader: "C", score: 90, leaderScore: 92, margin: 3.5, needs: 5.5, trusted: true }]);
    // The gap survives the round trip through the stored state the console reads.
    expect(restoreControllerState(JSON.parse(JSON.stringify(s))).regain).toEqual(s.regain);

    // Leading by the margin starts recovery: no gap is reported for a provider on its way back.
    const back = stepController(s, { candidates: [c("A", 96), c("B", 70), c("C", 92)] }, config, 3 * MIN);
    expect(back.events.map((e) => e.type)).toContain("recovery_detected");
    expect(back.state.regain).toEqual([]);
  });

  it("states stored before the field existed restore with no gaps", () => {
    const { regain: _dropped, ...old } = createControllerState("op", null, config, 0);
    expect(restoreControllerState(JSON.parse(JSON.stringify(old))).regain).toEqual([]);
  });
});
