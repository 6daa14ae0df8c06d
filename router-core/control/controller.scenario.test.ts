import { describe, expect, it } from "vitest";
import { createControllerState, stepController, type TControllerConfig, type TControllerEvent, type TControllerState } from "./controller";

/**
 * The paper's representative incident (Table 12) with its feedback-bias controls (Table 6),
 * ticked every 30 s (Listing 1's refresh_interval_seconds) with Listing 1's safety block except
 * the probe share, which Table 6 reports as 3%, and Table 6's minimum sample of 100.
 *
 * Sample counts are not scripted: each tick's count is the provider's served share of 2,500
 * requests per tick summed over the last 10 ticks (a 5-minute window), so the probe floor has to
 * earn the samples that let recovery be detected. 3% of 2,500 × 10 = 750, the order of Table 6's
 * 725/742. Served is what decide does with the planned shares: renormalised over the eligible,
 * so a provider behind an open breaker serves nothing whatever its planned share.
 * Scores are synthetic: Table 5's 96.5 / 88.2 when stable, Table 6's 61.8 / 78.4 / 94.2 after
 * the probe restarts; the paper's indices ride along as metrics evidence.
 */

const config: TControllerConfig = {
  priority: ["provider_A", "provider_B"],
  hysteresis_score_margin: 3.5,
  safety: { max_traffic_shift_per_minute: 0.5, primary_probe_share: 0.03, primary_recovery_cooldown_seconds: 300 },
  min_sample_size: 100,
};
const MIN = 60_000;
const T0 = Date.UTC(2026, 5, 14, 9, 10);
const REQUESTS_PER_TICK = 2_500;

type TPhase = { scoreA: number; eligibleA: boolean; metricsA: Record<string, number> };

function phaseAt(m: number): TPhase {
  if (m < 0) return { scoreA: 96.5, eligibleA: true, metricsA: { completion_index: 104.1, latency_index: 89.5 } };
  if (m < 5) return { scoreA: 80, eligibleA: true, metricsA: { completion_index: 88.4, latency_index: 165 } };
  if (m < 10) return { scoreA: 80, eligibleA: false, metricsA: { completion_index: 99.2, latency_index: 94 } };
  if (m < 12.5) return { scoreA: 61.8, eligibleA: true, metricsA: { completion_index: 99.2, latency_index: 94 } };
  if (m < 15) return { scoreA: 78.4, eligibleA: true, metricsA: { completion_index: 101, latency_index: 92 } };
  return { scoreA: 94.2, eligibleA: true, metricsA: { completion_index: 103.5, latency_index: 91 } };
}

type TTick = { m: number; shares: Record<string, number>; samplesA: number; events: TControllerEvent[] };

function runScenario(untilMinute: number): TTick[] {
  // Table 12's baseline has the secondary idle (100% on A until the incident), so this replay of
  // its timeline starts without the probe floor a fresh state puts the secondary on.
  let state: TControllerState = { ...createControllerState("SEND_SMS", "IN", config, T0 - 30 * MIN), probeFloor: [] };
  const history: Record<string, number>[] = [];
  const ticks: TTick[] = [];
  const samples = (p: string) => Math.round(history.slice(-10).reduce((sum, h) => sum + (h[p] ?? 0) * REQUESTS_PER_TICK, 0));
  for (let m = -29.5; m <= untilMinute; m += 0.5) {
    const phase = phaseAt(m);
    const samplesA = samples("provider_A");
    const result = stepController(
      state,
      {
        candidates: [
          {
            provider: "provider_A",
            eligible: phase.eligibleA,
            score: phase.scoreA,
            sampleCount: samplesA,
            failedGates: phase.eligibleA ? [] : ["circuit_breaker_closed"],
            metrics: phase.metricsA,
          },
          { provider: "provider_B", eligible: true, score: 88.2, sampleCount: samples("provider_B"), metrics: { completion_index: 98 } },
        ],
      },
      config,
      T0 + m * MIN,
    );
    state = result.state;
    const servedA = phase.eligibleA ? (result.shares.provider_A ?? 0) : 0;
    history.push({ provider_A: servedA, provider_B: 1 - servedA });
    ticks.push({ m, shares: result.shares, samplesA, events: result.events });
  }
  return ticks;
}

const ticks = runScenario(30);
const at = (m: number): TTick => {
  const tick = ticks.find((t) => t.m === m);
  if (!tick) throw new Error(`no tick at ${m}`);
  return tick;
};
const types = (m: number) => at(m).events.map((e) => (e.capped ? `${e.type}(capped)` : e.type));
const shareA = (m: number) => at(m).shares.provider_A ?? NaN;

describe("Table 12 incident timeline driven through stepController", () => {
  it("emits exactly this event sequence, tick by tick", () => {
    const withEvents = ticks.filter((t) => t.events.length > 0).map((t) => [t.m, types(t.m)]);
    expect(withEvents).toEqual([
      [0, ["score_decay_shift(capped)"]],
      [0.5, ["score_decay_shift(capped)"]],
      [1, ["score_decay_shift(capped)"]],
      [1.5, ["score_decay_shift", "probe_floor_held"]],
      [5, ["circuit_open_shift_to_secondary"]],
      [15, ["recovery_detected", "cooldown_started"]],
      [20, ["failback_step(capped)"]],
      [20.5, ["failback_step(capped)"]],
      [21, ["failback_step(capped)"]],
      [21.5, ["full_failback_completed", "probe_floor_held"]],
    ]);
  });

  it("T-30m stable baseline: all traffic on the primary, nothing moves", () => {
    for (const t of ticks.filter((t) => t.m < 0)) {
      expect(t.shares).toEqual({ provider_A: 1, provider_B: 0 });
      expect(t.events).toEqual([]);
    }
  });

  it("T0 degradation: the score decays past the hysteresis margin and the shift is capped at 25% per 30 s tick", () => {
    const [event] = at(0).events;
    expect(event).toMatchObject({
      type: "score_decay_shift",
      provider: "provider_A",
      leader: { from: "provider_A", to: "provider_B" },
      shares: { from: { provider_A: 1, provider_B: 0 }, to: { provider_A: 0.75, provider_B: 0.25 } },
      capped: true,
    });
    const evidenceA = event?.evidence.find((e) => e.provider === "provider_A");
    expect(evidenceA).toMatchObject({ score: 80, metrics: { completion_index: 88.4, latency_index: 165 } });
    expect([shareA(0), shareA(0.5), shareA(1), shareA(1.5)].map((s) => +s.toFixed(6))).toEqual([0.75, 0.5, 0.25, 0.03]);
  });

  it("the probe floor holds the degraded primary at 3% and keeps its samples above the minimum", () => {
    expect(at(1.5).events[1]).toMatchObject({ type: "probe_floor_held", provider: "provider_A" });
    for (let m = 1.5; m < 5; m += 0.5) expect(shareA(m)).toBeCloseTo(0.03, 12);
    // Table 6: at the floor the primary still collects 3% × 25,000 = 750 samples per window.
    expect(at(4.5).samplesA).toBeGreaterThanOrEqual(config.min_sample_size);
  });

  it("T+5m circuit opens: decide serves A nothing at once; the planned share stays at the probe floor", () => {
    expect(at(5).events[0]).toMatchObject({
      type: "circuit_open_shift_to_secondary",
      provider: "provider_A",
      capped: false,
      shares: { from: { provider_A: 0.03, provider_B: 0.97 }, to: { provider_A: 0.03, provider_B: 0.97 } },
    });
    for (let m = 5; m < 10; m += 0.5) expect(shareA(m)).toBeCloseTo(0.03, 12);
    // Served, not planned: the window loses A's samples while the breaker is open.
    expect(at(10).samplesA).toBe(0);
  });

  it("half-open: the floor already in place carries the probes, and recovery waits until probe samples pass the minimum", () => {
    expect(at(10).events).toEqual([]);
    expect(shareA(10)).toBeCloseTo(0.03, 12);
    expect(at(10).samplesA).toBeLessThan(config.min_sample_size);
    expect(at(15).samplesA).toBe(750);
    const [detected, cooldown] = at(15).events;
    expect(detected).toMatchObject({ type: "recovery_detected", provider: "provider_A", leader: { from: "provider_B", to: "provider_B" } });
    expect(detected?.detail).toContain("94.2 vs leader provider_B 88.2");
    expect(cooldown).toMatchObject({ type: "cooldown_started", provider: "provider_A" });
    expect(cooldown?.detail).toContain("300 s");
    // A time a person reads, not epoch milliseconds (issue #29).
    expect(cooldown?.detail).toMatch(/until \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it("cooldown: no traffic moves for primary_recovery_cooldown_seconds", () => {
    for (let m = 15; m < 20; m += 0.5) expect(shareA(m)).toBeCloseTo(0.03, 12);
  });

  it("gradual failback at the capped rate, then full failback with the secondary kept at the probe floor", () => {
    expect(at(20).events[0]).toMatchObject({ type: "failback_step", leader: { from: "provider_B", to: "provider_A" } });
    expect([20, 20.5, 21, 21.5].map((m) => +shareA(m).toFixed(6))).toEqual([0.28, 0.53, 0.78, 0.97]);
    expect(at(21.5).events[0]).toMatchObject({ type: "full_failback_completed", provider: "provider_A", capped: false });
    expect(at(21.5).events[1]).toMatchObject({ type: "probe_floor_held", provider: "provider_B" });
    expect(at(30).shares.provider_A).toBeCloseTo(0.97, 12);
    expect(at(30).shares.provider_B).toBeCloseTo(0.03, 12);
  });
});
