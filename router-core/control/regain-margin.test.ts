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

describe("regain gap (what a displaced former leader lacks)", () => {
  it("a former primary below the leader is told the points, samples, probe share and when it is looked at again", () => {
    // A degrades and C takes over; then A is healthy again but scores 90 against C's 92.
    let s = createControllerState("op", "EU", config, 0);
    s = stepController(s, { candidates: [c("A", 60), c("B", 70), c("C", 92)] }, config, MIN).state;
    expect(s.leader).toBe("C");
    expect(s.displaced).toEqual(["A"]);
    s = stepController(s, { candidates: [c("A", 90), c("B", 70), c("C", 92, 40)] }, config, 2 * MIN).state;
    // A ranks above C in the priority order: it needs no lead, only to score at least C's score.
    expect(s.regain).toEqual([
      {
        provider: "A",
        leader: "C",
        score: 90,
        leaderScore: 92,
        margin: 0,
        needs: 2,
        trusted: true,
        samples: 1_000,
        samplesNeeded: 100,
        probeShare: 0.01,
        callsPerMinute: null,
        phase: "waiting",
        reconsiderAt: null,
      },
    ]);
    // The gap survives the round trip through the stored state the console reads.
    expect(restoreControllerState(JSON.parse(JSON.stringify(s))).regain).toEqual(s.regain);

    // Scoring at least C starts the cooldown: the gap then says when failback can start.
    const back = stepController(s, { candidates: [c("A", 93), c("B", 70), c("C", 92)] }, config, 3 * MIN);
    expect(back.events.map((e) => e.type)).toContain("recovery_detected");
    expect(back.state.regain).toMatchObject([{ provider: "A", phase: "cooldown", reconsiderAt: 3 * MIN + 300_000 }]);
  });

  it("a displaced provider the leader outranks needs the hysteresis margin, as any challenger does", () => {
    // B had led and was displaced; A, above it in the priority order, leads now.
    let s = createControllerState("op", "EU", config, 0);
    s = { ...s, displaced: ["B"], leader: "A" };
    s = stepController(s, { candidates: [c("A", 95), c("B", 90), c("C", 70)] }, config, 2 * MIN).state;
    expect(s.regain).toMatchObject([{ provider: "B", leader: "A", margin: 3.5, needs: 8.5 }]);
  });

  it("a thin window: the samples it lacks, and the probe share and calls a minute that bring them", () => {
    const windowed = { ...config, metric_window_minutes: 5 };
    let s = createControllerState("op", "EU", windowed, 0);
    s = stepController(s, { candidates: [c("A", 60), c("B", 92), c("C", 70)] }, windowed, MIN).state;
    // 300 decisions in the window (1/s); A has 3 of them, one failed.
    const thin = { ...c("A", 40, 3), regional: { samples: 3, failures: 1 }, confidencePoints: 8.8 };
    s = stepController(s, { candidates: [thin, c("B", 92, 290), c("C", 70, 7)] }, windowed, 2 * MIN).state;
    const [gap] = s.regain ?? [];
    expect(gap).toMatchObject({ provider: "A", score: 48.8, needs: 92 - 48.8, trusted: false, samples: 3, probeShare: 0.01, callsPerMinute: 0.6 });
    expect(gap!.samplesNeeded).toBeGreaterThan(3);
  });

  it("states stored before the field existed restore with no gaps", () => {
    const { regain: _dropped, ...old } = createControllerState("op", null, config, 0);
    expect(restoreControllerState(JSON.parse(JSON.stringify(old))).regain).toEqual([]);
  });
});
