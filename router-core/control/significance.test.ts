import { describe, expect, it } from "vitest";
import { createControllerState, stepController, type TControllerCandidate, type TControllerConfig } from "./controller";
import { provenLowerFailureRate, unprovenRateLeads } from "./significance";

const rate = (failures: number, samples: number) => ({ failureRate: failures / samples, samples });

describe("provenLowerFailureRate (Newcombe's hybrid score interval, one-sided 95%)", () => {
  it("does not call a thin window's lower point estimate proof", () => {
    // A probe-floor provider's 0 failures in 57 calls against a leader's 3.7% on 1,143.
    expect(provenLowerFailureRate(rate(0, 57), rate(42, 1143))).toBe(false);
    // Its 3 in 57 (5.3%) is higher than the leader's: no lead at all.
    expect(provenLowerFailureRate(rate(3, 57), rate(42, 1143))).toBe(false);
  });

  it("proves a real difference, also on a thin window", () => {
    // A degraded leader failing 15% against a probe-floor provider's clean 30 calls.
    expect(provenLowerFailureRate(rate(0, 30), rate(450, 3000))).toBe(true);
    expect(provenLowerFailureRate(rate(5, 1000), rate(50, 1000))).toBe(true);
  });

  it("is not proven by the same rate, by no samples, or the wrong way round", () => {
    expect(provenLowerFailureRate(rate(10, 1000), rate(10, 1000))).toBe(false);
    expect(provenLowerFailureRate({ failureRate: 0, samples: 0 }, rate(450, 3000))).toBe(false);
    expect(provenLowerFailureRate(rate(450, 3000), rate(0, 30))).toBe(false);
  });

  it("is less demanding than disjoint Wilson intervals", () => {
    // 2.0% vs 3.0% on 2,000 calls each: 2.0%'s upper bound (2.58%) is above 3.0%'s lower bound
    // (2.43%), and the difference is still significant.
    expect(provenLowerFailureRate(rate(40, 2000), rate(60, 2000))).toBe(true);
  });
});

describe("unprovenRateLeads", () => {
  const incumbent = {
    provider: "provider_A",
    eligible: true,
    score: 57,
    sampleCount: 1143,
    rates: [{ score: "completion_rate_5m", failureRate: 42 / 1143, samples: 1143, points: 2 }],
  };

  it("takes off a rate lead the challenger's samples do not prove", () => {
    const challenger = {
      ...incumbent,
      provider: "provider_B",
      sampleCount: 57,
      rates: [{ score: "completion_rate_5m", failureRate: 3 / 57, samples: 57, points: 14 }],
    };
    expect(unprovenRateLeads(challenger, incumbent)).toEqual([{ score: "completion_rate_5m", points: 12 }]);
  });

  it("keeps a proven lead, a rate it trails on, and a rate the incumbent has no measure of", () => {
    const proven = { ...incumbent, provider: "provider_B", rates: [{ score: "completion_rate_5m", failureRate: 0, samples: 400, points: 45 }] };
    expect(unprovenRateLeads(proven, incumbent)).toEqual([]);
    const trailing = { ...incumbent, provider: "provider_B", rates: [{ score: "completion_rate_5m", failureRate: 0.05, samples: 57, points: 1 }] };
    expect(unprovenRateLeads(trailing, incumbent)).toEqual([]);
    const other = { ...incumbent, provider: "provider_B", rates: [{ score: "error_rate_5m", failureRate: 0, samples: 57, points: 20 }] };
    expect(unprovenRateLeads(other, incumbent)).toEqual([]);
    expect(unprovenRateLeads({ ...other, rates: undefined }, incumbent)).toEqual([]);
  });
});

describe("stepController: a challenge counts only the rate lead its samples prove", () => {
  const config: TControllerConfig = {
    priority: ["provider_A", "provider_B"],
    hysteresis_score_margin: 1,
    safety: { max_traffic_shift_per_minute: 1, primary_probe_share: 0.05, primary_recovery_cooldown_seconds: 10 },
    min_sample_size: 20,
  };
  const a: TControllerCandidate = {
    provider: "provider_A",
    eligible: true,
    score: 57,
    sampleCount: 1143,
    rates: [{ score: "completion_rate_5m", failureRate: 42 / 1143, samples: 1143, points: 2 }],
  };
  const b = (score: number, failures: number): TControllerCandidate => ({
    provider: "provider_B",
    eligible: true,
    score,
    sampleCount: 57,
    rates: [{ score: "completion_rate_5m", failureRate: failures / 57, samples: 57, points: 14 }],
  });
  const step = (challenger: TControllerCandidate) =>
    stepController(createControllerState("SEND_SMS", "EU", config, 0), { candidates: [a, challenger] }, config, 10_000);

  it("keeps a healthy leader whose challenger leads only on an unproven failure rate", () => {
    // B leads by 7 points, 12 of them from its completion index on 3 failures in 57 calls.
    const r = step(b(64, 3));
    expect(r.state.leader).toBe("provider_A");
    expect(r.events.map((e) => e.type)).not.toContain("score_decay_shift");
  });

  it("moves when the rest of the lead clears the margin, and says what was not counted", () => {
    const r = step(b(71, 3));
    expect(r.state.leader).toBe("provider_B");
    const shift = r.events.find((e) => e.type === "score_decay_shift");
    expect(shift?.detail).toContain("provider_B scores 71 (59 counted: completion_rate_5m lead not proven) vs provider_A 57 (margin 1)");
  });

  it("counts the whole lead when the failure rate is proven lower", () => {
    const proven = { ...b(64, 0), sampleCount: 400, rates: [{ score: "completion_rate_5m", failureRate: 0, samples: 400, points: 14 }] };
    const r = step(proven);
    expect(r.state.leader).toBe("provider_B");
    expect(r.events.find((e) => e.type === "score_decay_shift")?.detail).toContain("provider_B scores 64 vs provider_A 57 (margin 1)");
  });
});
