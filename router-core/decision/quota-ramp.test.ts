import { describe, expect, it } from "vitest";
import { createSimulatedClock } from "../clock";
import { consumeQuota, createQuotaState, quotaView } from "../control/quota-tracker";
import { parseFactorList } from "../policy/codec";
import type { TFactorList } from "../policy/schema";
import { createSeededRandom } from "../random";
import type { TProviderInfo, TQuotaView, TRouterState } from "../types";
import { metricSnapshot } from "../gates/gate-input.fixture";
import { decide } from "./decide";

/** decide() honouring TQuotaView.shareCeiling, the recovery ramp of the token-gateway article (docs/references.md) section 5. */

const NOW = Date.UTC(2026, 5, 15, 0, 0);

function policy(strategy = "weighted_score"): TFactorList {
  const r = parseFactorList({
    operation: "SEND_SMS",
    providers: ["a", "b", "c"],
    gates: ["supports_region", "quota_available"],
    strategy,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.value;
}

const provider = (key: string): TProviderInfo => ({
  key,
  regions: ["*"],
  complianceTags: [],
  costPerRequest: 0.01,
  credentialStatus: "valid",
  enabled: true,
});

const metrics = metricSnapshot({ updatedAt: NOW - 5_000 });

const recovering = (shareCeiling: number): TQuotaView => ({ remainingMinute: 900, remainingDay: null, resetAt: NOW + 60_000, shareCeiling });

function state(shares: Record<string, number> | null, quotas: Record<string, TQuotaView>, extra: Partial<TRouterState> = {}): TRouterState {
  return {
    providers: [provider("a"), provider("b"), provider("c")],
    metrics: { a: metrics, b: metrics, c: metrics },
    breakers: {},
    quotas,
    shares,
    ...extra,
  };
}

const ctx = { operation: "SEND_SMS", region: "EU", requestId: "r1" };
const run = (s: TRouterState, p = policy(), seed = 1) => decide(ctx, s, p, createSimulatedClock(NOW), createSeededRandom(seed));
const probabilities = (s: TRouterState, p = policy()) => run(s, p).candidates.map((c) => c.selectionProbability);
const quotaGate = (s: TRouterState, i: number) => run(s).candidates[i]!.gates.find((g) => g.gate === "quota_available");

describe("quota share ceiling", () => {
  it("caps the recovering provider's renormalised share and spreads the rest in proportion to the others' shares", () => {
    const s = state({ a: 0.5, b: 0.3, c: 0.2 }, { a: recovering(0.2) });
    expect(probabilities(s)).toEqual([0.2, 0.48, 0.32].map((x) => expect.closeTo(x, 12)));
    expect(run(s).reasonCode).toBe("share_weighted");
    expect(quotaGate(s, 0)).toEqual({ gate: "quota_available", passed: true, detail: "quota recovering from exhaustion: share capped at 20%" });
    expect(quotaGate(s, 1)?.detail).toBe("no quota tracked for provider");
  });

  it("caps again when the spread lifts another provider over its own ceiling", () => {
    const s = state({ a: 0.6, b: 0.3, c: 0.1 }, { a: recovering(0.2), b: recovering(0.35) });
    expect(probabilities(s)).toEqual([0.2, 0.35, 0.45].map((x) => expect.closeTo(x, 12)));
  });

  it("a ceiling above the share changes nothing", () => {
    expect(probabilities(state({ a: 0.1, b: 0.6, c: 0.3 }, { a: recovering(0.4) }))).toEqual([0.1, 0.6, 0.3].map((x) => expect.closeTo(x, 12)));
  });

  it("with priority_failover the rest goes to the next provider in priority order", () => {
    const p = policy("priority_failover");
    const s = state(null, { a: recovering(0.25) });
    expect(probabilities(s, p)).toEqual([0.25, 0.75, 0]);
    expect(run(s, p).reasonCode).toBe("priority_failover");
  });

  it("moves traffic but never drops it: a sole eligible provider keeps all of it", () => {
    const s = state({ a: 0.5, b: 0.3, c: 0.2 }, { a: recovering(0.3) }, { overrides: { killedProviders: ["b", "c"] } });
    const d = run(s);
    expect(d.selected).toBe("a");
    expect(d.candidates[0]!.selectionProbability).toBe(1);
  });

  it("a ceiling of 0 fails the quota gate", () => {
    const s = state({ a: 0.5, b: 0.3, c: 0.2 }, { a: recovering(0) });
    expect(quotaGate(s, 0)).toEqual({ gate: "quota_available", passed: false, detail: "quota recovering: share ceiling 0 until the reset" });
    expect(probabilities(s)).toEqual([0, 0.6, 0.4].map((x) => expect.closeTo(x, 12)));
  });

  it("draws at the capped rate", () => {
    const s = state({ a: 0.7, b: 0.2, c: 0.1 }, { a: recovering(0.25) });
    const clock = createSimulatedClock(NOW);
    const random = createSeededRandom(7);
    const n = 20_000;
    let a = 0;
    for (let i = 0; i < n; i++) if (decide({ ...ctx, requestId: `r${i}` }, s, policy(), clock, random).selected === "a") a++;
    // 5 standard deviations of a binomial(20000, 0.25) is about 0.015.
    expect(Math.abs(a / n - 0.25)).toBeLessThan(0.015);
  });

  it("follows the quota tracker's ramp after a reset (no spike back to the old share)", () => {
    const morning = NOW - 15 * 3_600_000;
    const q = consumeQuota(createQuotaState("a", { per_minute: 1000, per_day: 100_000, preallocation_fraction: 0.2 }, morning), morning, 100_000);
    const before = quotaView(q, NOW - 1_000);
    expect(before.shareCeiling).toBeUndefined();
    expect(run(state({ a: 1, b: 0, c: 0 }, { a: before })).selected).not.toBe("a");
    // 150 s into the 300 s ramp: 0.2 + 0.8 × 0.5.
    const mid = quotaView(q, NOW + 150_000);
    expect(mid.shareCeiling).toBeCloseTo(0.6, 12);
    const s = state({ a: 1, b: 0, c: 0 }, { a: mid });
    const d = decide(ctx, s, policy(), createSimulatedClock(NOW + 150_000), createSeededRandom(1));
    expect(d.candidates.map((c) => c.selectionProbability)).toEqual([0.6, 0.4, 0].map((x) => expect.closeTo(x, 12)));
    expect(quotaView(q, NOW + 300_000).shareCeiling).toBeUndefined();
  });
});
