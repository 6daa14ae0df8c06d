import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSimulatedClock } from "../clock";
import { parseFactorList } from "../policy/codec";
import type { TFactorList, TFactorListInput } from "../policy/schema";
import { createSeededRandom } from "../random";
import type { TBreakerView, TMetricSnapshot, TProviderInfo, TQuotaView, TRouterState } from "../types";
import { metricSnapshot } from "../gates/gate-input.fixture";
import { decide } from "./decide";
import { REASON_CODES } from "./reason-codes";
import { scoreCandidates } from "./score-candidates";

const NOW = 1_750_000_000_000;
const listing1 = readFileSync(new URL("../policy/listing1.yaml", import.meta.url), "utf8");

function policy(overrides: Partial<TFactorListInput> = {}): TFactorList {
  const base = parseFactorList(listing1);
  if (!base.ok) throw new Error("listing 1 must parse");
  const r = parseFactorList({ ...base.value, providers: ["a", "b", "c"], ...overrides });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.value;
}

const provider = (key: string, extra: Partial<TProviderInfo> = {}): TProviderInfo => ({
  key,
  regions: ["EU", "US"],
  complianceTags: ["gdpr"],
  costPerRequest: 0.01,
  credentialStatus: "valid",
  enabled: true,
  ...extra,
});

const metrics = (extra: Partial<TMetricSnapshot> = {}): TMetricSnapshot => metricSnapshot({ updatedAt: NOW - 5_000, ...extra });

function state(extra: Partial<TRouterState> = {}): TRouterState {
  return {
    providers: [provider("a"), provider("b", { costPerRequest: 0.008 }), provider("c", { costPerRequest: 0.012 })],
    metrics: { a: metrics(), b: metrics({ completionRate: 0.95, p95Ms: 400 }), c: metrics({ completionRate: 0.9, p95Ms: 500 }) },
    breakers: {},
    quotas: {},
    shares: { a: 0.7, b: 0.2, c: 0.1 },
    policyVersion: "v1",
    ...extra,
  };
}

const ctx = { operation: "SEND_SMS", region: "EU", requestId: "r1" };
const run = (s: TRouterState, p = policy(), seed = 1, c = ctx) => decide(c, s, p, createSimulatedClock(NOW), createSeededRandom(seed));

describe("decide", () => {
  it("records every candidate's gates, contributions, score and share", () => {
    const d = run(state());
    expect(d.selected).not.toBeNull();
    expect(d.reasonCode).toBe("share_weighted");
    expect(d.policyVersion).toBe("v1");
    expect(d.candidates.map((c) => c.provider)).toEqual(["a", "b", "c"]);
    for (const c of d.candidates) {
      expect(c.gates.map((g) => g.gate)).toEqual(["not_killed", ...policy().gates]);
      expect(c.contributions.map((x) => x.score)).toEqual(Object.keys(policy().scores));
      expect(c.score).toBe(c.contributions.reduce((s, x) => s + x.value, 0));
    }
    expect(d.candidates[0]!.score).toBeGreaterThan(d.candidates[1]!.score!);
    expect(d.scoreMargin).toBeCloseTo(d.candidates[0]!.score! - d.candidates[1]!.score!, 12);
    expect(d.candidates.map((c) => c.selectionProbability)).toEqual([0.7, 0.2, 0.1].map((x) => expect.closeTo(x, 12)));
    expect(d.metricAgeSeconds).toBe(5);
    expect(d.stale).toBe(false);
  });

  it("draws by shares renormalised over the eligible providers", () => {
    const s = state({ breakers: { a: { state: "open", probeAvailable: false, nextAttemptAt: NOW + 20_000 } } });
    const counts: Record<string, number> = {};
    const random = createSeededRandom(7);
    const clock = createSimulatedClock(NOW);
    const p = policy();
    for (let i = 0; i < 3000; i++) {
      const d = decide(ctx, s, p, clock, random);
      counts[d.selected!] = (counts[d.selected!] ?? 0) + 1;
    }
    expect(counts.a).toBeUndefined();
    expect(counts.b! / 3000).toBeCloseTo(2 / 3, 1);
    const one = decide(ctx, s, p, clock, random);
    expect(one.candidates[1]!.selectionProbability).toBeCloseTo(2 / 3, 12);
    expect(one.candidates[0]!.gates.find((g) => !g.passed)?.detail).toBe("circuit open; next attempt in 20s");
  });

  it("sends everything to the first eligible provider when there are no shares", () => {
    const d = run(state({ shares: null, providers: [provider("a", { regions: ["US"] }), provider("b"), provider("c")] }));
    expect(d).toMatchObject({ selected: "b", reasonCode: "initial_share_primary" });
    expect(d.candidates[0]!.gates.find((g) => g.gate === "supports_region")).toMatchObject({ passed: false });
  });

  it("answers with the fallback policy and retry-after when every provider fails a hard gate", () => {
    const open: TBreakerView = { state: "open", probeAvailable: false, nextAttemptAt: NOW + 12_000 };
    const empty: TQuotaView = { remainingMinute: 0, remainingDay: 100, resetAt: NOW + 40_000 };
    const d = run(state({ breakers: { a: open, b: open }, quotas: { c: empty } }));
    expect(d.selected).toBeNull();
    expect(d.reasonCode).toBe("no_eligible_provider");
    expect(d.fallback).toMatchObject({ action: "queue", retryAfterSeconds: 12 });
    const esc = run(state({ breakers: { a: open, b: open }, quotas: { c: empty } }), policy({ fallback_policy: "escalate" }));
    expect(esc.fallback?.action).toBe("escalate");
    expect(run(state({ providers: [] })).reasonCode).toBe("no_candidates");
  });

  it("routing kill switch falls back to static priority order", () => {
    const d = run(state({ overrides: { routingKilled: true }, breakers: { a: { state: "open", probeAvailable: false } } }));
    expect(d).toMatchObject({ selected: "b", reasonCode: "routing_killed_static_order", override: "routing_killed" });
  });

  it("provider kill excludes even when the factor list omits not_killed", () => {
    const d = run(state({ overrides: { killedProviders: ["a", "b"] } }));
    expect(d.selected).toBe("c");
    expect(d.candidates[0]!.gates[0]).toEqual({ gate: "not_killed", passed: false, detail: "provider killed by operator override" });
  });

  it("pins a provider until expiry, but not around region, compliance or credentials", () => {
    const pin = { provider: "c", reason: "INC-42", expiresAt: NOW + 60_000 };
    expect(run(state({ overrides: { pin } }))).toMatchObject({ selected: "c", reasonCode: "pinned", override: "pinned" });
    expect(run(state({ overrides: { pin: { ...pin, expiresAt: NOW } } })).override).toBe("pin_expired");
    const badCreds = state({
      overrides: { pin },
      providers: [provider("a"), provider("b"), provider("c", { credentialStatus: "expired" })],
    });
    const d = run(badCreds);
    expect(d.reasonCode).toBe("pin_ineligible");
    expect(d.override).toBe("pin_ineligible");
    expect(d.selected).not.toBe("c");
    expect(d.candidates[2]!.gates.at(-1)).toEqual({ gate: "credentials_valid", passed: false, detail: "credentials expired" });
  });

  it("enforces regional compliance rules and request compliance attributes", () => {
    const s = state({ providers: [provider("a", { complianceTags: [] }), provider("b"), provider("c", { complianceTags: ["gdpr", "hipaa"] })] });
    const p = policy({ regions: { EU: { required_compliance: ["gdpr"] } } });
    const d = run(s, p);
    expect(d.candidates[0]!.gates.find((g) => g.gate === "compliance_allowed")).toMatchObject({
      passed: false,
      detail: "provider lacks required compliance: gdpr (EU requires gdpr; provider holds none)",
    });
    const hipaa = run(s, p, 1, { ...ctx, attributes: { compliance: "hipaa" } } as typeof ctx);
    expect(hipaa.selected).toBe("c");
    expect(hipaa.candidates[1]!.gates.find((g) => g.gate === "compliance_allowed")?.detail).toMatch(
      /^provider lacks required compliance: hipaa \(EU requires (gdpr, hipaa|hipaa, gdpr); provider holds /,
    );
    // The request's tags did not leak into the region's cached outcome.
    expect(run(s, p).candidates[1]!.gates.find((g) => g.gate === "compliance_allowed")?.passed).toBe(true);
  });

  it("caches request-independent gates per catalogue array and region: a replaced catalogue takes effect", () => {
    const p = policy({ gates: ["supports_region", "credentials_valid"] });
    const s = state();
    expect(run(s, p).candidates[0]!.gates.find((g) => g.gate === "credentials_valid")?.passed).toBe(true);
    expect(run(s, p, 1, { ...ctx, region: "APAC" }).candidates[0]!.gates.find((g) => g.gate === "supports_region")).toMatchObject({
      passed: false,
      detail: "provider does not serve region APAC (serves EU, US)",
    });
    const replaced = { ...s, providers: [provider("a", { credentialStatus: "expired" }), ...s.providers.slice(1)] };
    const d = run(replaced, p);
    expect(d.candidates[0]!.gates.find((g) => g.gate === "credentials_valid")).toMatchObject({ passed: false, detail: "credentials expired" });
    expect(d.candidates[0]!.passedGates).toBe(false);
  });

  it("decisions on one routing state share records and explanation arrays; a new state, a pin's extra gates or a stale age's next second get their own", () => {
    const p = policy();
    const s = state();
    const first = run(s, p, 1);
    const second = run(s, p, 2, { ...ctx, requestId: "r2" });
    const [a1, a2] = [first.candidates[0]!, second.candidates[0]!];
    // The same probabilities: the same records, in the same array.
    expect(second.candidates).toBe(first.candidates);
    expect(a2).toBe(a1);
    expect(a2.score).toBe(a1.score);
    // A shadow policy with other shares does not touch the active records.
    const shadowed = decide({ ...ctx, requestId: "r3" }, s, p, createSimulatedClock(NOW), createSeededRandom(3), { shadow: { policy: p, shares: { c: 1 } } });
    expect(shadowed.shadow?.selected).toBe("c");
    expect(shadowed.candidates).toBe(first.candidates);
    expect(first.candidates.map((c) => c.selectionProbability)).toEqual([0.7, 0.2, 0.1].map((x) => expect.closeTo(x, 12)));
    // Another probability (a quota ceiling on b): new records where it differs, the earlier decision's unchanged.
    const capped = run({ ...s, quotas: { b: { remainingMinute: 5, remainingDay: null, resetAt: null, shareCeiling: 0.1 } } }, p, 4);
    expect(capped.candidates[1]!.selectionProbability).toBeCloseTo(0.1, 12);
    expect(first.candidates[1]!.selectionProbability).toBeCloseTo(0.2, 12);
    // Shared records still explain themselves exactly.
    expect(a2.contributions.reduce((t, c) => t + c.value, 0)).toBeCloseTo(a2.score!, 12);

    // New metrics (the data plane's next refresh): new contributions with the new numbers.
    const worse = run({ ...s, metrics: { ...s.metrics, a: metrics({ p95Ms: 900 }) } }, p, 3);
    expect(worse.candidates[0]!.contributions).not.toBe(a1.contributions);
    expect(worse.candidates[0]!.contributions.find((c) => c.score === "p95_latency_5m")!.raw).toBe(900);
    expect(run(s, p, 4).candidates[0]!.contributions.find((c) => c.score === "p95_latency_5m")!.raw).toBe(300);

    // A pinned provider's extra pin gates go into a new array; the shared one is untouched.
    const few = policy({ gates: ["circuit_breaker_closed"] });
    const before = run(s, few, 5).candidates[0]!.gates.map((g) => g.gate);
    const pinned = run(
      { ...s, overrides: { pin: { provider: "a", reason: "test", expiresAt: NOW + 60_000 }, routingKilled: false, killedProviders: [] } },
      few,
      6,
    );
    expect(pinned.reasonCode).toBe("pinned");
    expect(pinned.candidates[0]!.gates.length).toBeGreaterThan(before.length);
    expect(run(s, few, 7).candidates[0]!.gates.map((g) => g.gate)).toEqual(before);

    // Under the stale penalty the contributions state the metric age in whole seconds: the same
    // records within that second (the evaluation is kept), new ones once the stated age moves on.
    const stalePolicy = policy({ stale_policy: "penalty", stale_penalty_points: 10 });
    const old = { ...s, metrics: { a: metrics({ updatedAt: NOW - 3_600_000 }), b: s.metrics.b!, c: s.metrics.c! } };
    const staleAt = (ms: number, seed: number) => decide(ctx, old, stalePolicy, createSimulatedClock(NOW + ms), createSeededRandom(seed)).candidates[0]!;
    expect(staleAt(0, 8)).toBe(run(old, stalePolicy, 9).candidates[0]!);
    expect(staleAt(400, 10).contributions).toBe(staleAt(0, 11).contributions);
    expect(staleAt(600, 12).contributions).not.toBe(staleAt(0, 13).contributions);
    expect(staleAt(600, 12).contributions.at(-1)).toMatchObject({ score: "stale_penalty", raw: 3601 });
  });

  it("a later decision on the same routing state sees the time: metrics going stale, a breaker's next attempt, a quota reset", () => {
    const p = policy();
    const s = state({
      breakers: { a: { state: "open", probeAvailable: false, nextAttemptAt: NOW + 60_000 } },
      quotas: { c: { remainingMinute: 0, remainingDay: null, resetAt: NOW + 30_000 } },
    });
    const at = (t: number) => decide(ctx, s, p, createSimulatedClock(t), createSeededRandom(1));
    const detail = (d: ReturnType<typeof decide>, i: number, gate: string) => d.candidates[i]!.gates.find((g) => g.gate === gate)!.detail;
    const first = at(NOW);
    expect(detail(first, 0, "circuit_breaker_closed")).toBe("circuit open; next attempt in 60s");
    expect(detail(first, 2, "quota_available")).toBe("per-minute quota exhausted, resets in 30s");
    expect(first.candidates[1]!.stale).toBe(false);
    const later = at(NOW + 10_000);
    expect(detail(later, 0, "circuit_breaker_closed")).toBe("circuit open; next attempt in 50s");
    expect(detail(later, 2, "quota_available")).toBe("per-minute quota exhausted, resets in 20s");
    expect(detail(first, 0, "circuit_breaker_closed")).toBe("circuit open; next attempt in 60s");

    // Without time-dependent outcomes the evaluation is kept, until b's metrics pass the maximum age.
    const calm = state({ metrics: { ...state().metrics, b: metrics({ updatedAt: NOW - 20_000 }) } });
    const maxAgeMs = p.max_metric_age_seconds * 1000;
    const fresh = decide(ctx, calm, p, createSimulatedClock(NOW - 20_000 + maxAgeMs), createSeededRandom(1));
    expect(fresh.candidates[1]!.stale).toBe(false);
    const stale = decide(ctx, calm, p, createSimulatedClock(NOW - 20_000 + maxAgeMs + 1), createSeededRandom(1));
    expect(stale.candidates[1]!.stale).toBe(true);
    expect(stale.candidates[1]!.gates.find((g) => g.gate === "metric_fresh_or_safe_default")!.detail).toMatch(/old/);
  });

  it("picks the least-bad candidate under guardrails and says so", () => {
    const p = policy({ guardrails: { max_p95_ms: 250 } });
    const d = run(state(), p);
    expect(d).toMatchObject({ selected: "a", reasonCode: "least_bad_guardrail" });
    expect(d.candidates[0]!.guardrail?.violations).toEqual(["p95 300 ms > max_p95_ms 250"]);
    const some = run(state({ metrics: { ...state().metrics, b: metrics({ p95Ms: 200 }) } }), p);
    expect(some).toMatchObject({ selected: "b", reasonCode: "share_weighted" });
    expect(some.candidates.filter((c) => c.eligible).map((c) => c.provider)).toEqual(["b"]);
  });

  it("treats stale metrics with safe defaults, a penalty, or exclusion", () => {
    const s = state({ metrics: { ...state().metrics, a: metrics({ updatedAt: NOW - 600_000 }) } });
    const safe = run(s, policy({ stale_policy: "safe_default" })).candidates[0]!;
    expect(safe.stale).toBe(true);
    expect(safe.contributions.find((c) => c.score === "completion_rate_5m")).toMatchObject({ index: 50, defaulted: true });
    expect(safe.contributions.find((c) => c.score === "confidence_from_sample")).toMatchObject({ index: 0 });
    const pen = run(s, policy({ stale_policy: "penalty" })).candidates[0]!;
    expect(run(s).candidates[0]!.contributions).toEqual(pen.contributions);
    expect(pen.contributions.at(-1)).toMatchObject({ score: "stale_penalty", value: -10, raw: 600 });
    expect(pen.score).toBe(pen.contributions.reduce((a, c) => a + c.value, 0));
    const ex = run(s, policy({ stale_policy: "exclude" }));
    expect(ex.candidates[0]!.passedGates).toBe(false);
  });

  it("gives a stale candidate the same record throughout a second of its age, so the list is stored once", () => {
    const s = state({ metrics: { ...state().metrics, a: metrics({ updatedAt: NOW - 600_000 }) } });
    const p = policy({ stale_policy: "penalty" });
    const at = (ms: number) => decide(ctx, s, p, createSimulatedClock(NOW + ms), createSeededRandom(1)).candidates;
    // 600.2 s and 600.4 s old: the gate says "600s old" for both, and so does the penalty's raw age.
    expect(JSON.stringify(at(400))).toBe(JSON.stringify(at(200)));
    expect(at(200)[0]!.contributions.at(-1)).toMatchObject({ score: "stale_penalty", raw: 600 });
    expect(at(700)[0]!.contributions.at(-1)).toMatchObject({ score: "stale_penalty", raw: 601 });
  });

  it("half-open providers pass only with a free probe slot", () => {
    const d = run(state({ breakers: { a: { state: "half_open", probeAvailable: true } } }));
    expect(d.candidates[0]!.gates.find((g) => g.gate === "circuit_breaker_closed")?.detail).toMatch(/probe/);
    const full = run(state({ breakers: { "a|EU": { state: "half_open", probeAvailable: false }, a: { state: "closed", probeAvailable: false } } }));
    expect(full.candidates[0]!.passedGates).toBe(false);
  });

  it("evaluates a shadow policy alongside without changing the active decision", () => {
    const s = state();
    const alone = run(s);
    const shadowPolicy = policy({ strategy: "priority_failover", providers: ["c", "b", "a"] });
    const both = decide(ctx, s, policy(), createSimulatedClock(NOW), createSeededRandom(1), {
      shadow: { policy: shadowPolicy, policyVersion: "v2-shadow" },
    });
    expect({ ...both, shadow: null }).toEqual(alone);
    expect(both.shadow).toMatchObject({ policyVersion: "v2-shadow", selected: "c", reasonCode: "priority_failover" });
    expect(both.shadow!.agrees).toBe(alone.selected === "c");
    const scoreShadow = decide(ctx, s, policy(), createSimulatedClock(NOW), createSeededRandom(1), { shadow: { policy: policy() } });
    expect(scoreShadow.shadow?.selected).toBe("a");
  });

  it("uses only reason codes from the closed set", () => {
    expect(REASON_CODES).toContain(run(state()).reasonCode);
  });
});

describe("scoreCandidates", () => {
  it("returns the scores decide() logs, in priority order", () => {
    const s = state({ quotas: { c: { remainingMinute: 0, remainingDay: null, resetAt: null } } });
    const scored = scoreCandidates(policy(), s, ctx, createSimulatedClock(NOW));
    const d = run(s);
    expect(scored.map((x) => [x.provider, x.eligible, x.score])).toEqual(d.candidates.map((c) => [c.provider, c.eligible, c.score]));
    expect(scored[2]).toMatchObject({ eligible: false, failedGates: ["quota_available"], score: null });
    expect(scored[0]!.sampleCount).toBe(500);
  });
});

const arbMetrics = fc.record({
  sampleCount: fc.nat(2000),
  completionRate: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
  errorRate: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
  p95Ms: fc.option(fc.double({ min: 1, max: 10_000, noNaN: true })),
  p99Ms: fc.option(fc.double({ min: 1, max: 20_000, noNaN: true })),
  recentIncidents: fc.nat(5),
  confidence: fc.double({ min: 0, max: 1, noNaN: true }),
  updatedAt: fc.option(fc.integer({ min: NOW - 300_000, max: NOW })),
  scope: fc.constantFrom("region" as const, "operation" as const),
});

const arbProvider = (key: string) =>
  fc.record({
    key: fc.constant(key),
    regions: fc.subarray(["EU", "US", "*"]),
    complianceTags: fc.subarray(["gdpr", "hipaa"]),
    costPerRequest: fc.double({ min: 0, max: 1, noNaN: true }),
    credentialStatus: fc.constantFrom("valid" as const, "invalid" as const, "expired" as const, "unknown" as const),
    enabled: fc.boolean(),
  });

const arbBreaker = fc.option(
  fc.record(
    {
      state: fc.constantFrom("closed" as const, "open" as const, "half_open" as const),
      probeAvailable: fc.boolean(),
      nextAttemptAt: fc.integer({ min: NOW, max: NOW + 600_000 }),
    },
    { requiredKeys: ["state", "probeAvailable"] },
  ),
  { nil: undefined },
);
const arbQuota = fc.option(
  fc.record({
    remainingMinute: fc.option(fc.nat(3)),
    remainingDay: fc.option(fc.nat(3)),
    resetAt: fc.option(fc.integer({ min: NOW, max: NOW + 60_000 })),
  }),
  { nil: undefined },
);

const KEYS = ["a", "b", "c", "d"];
const arbState = fc
  .record({
    providers: fc.tuple(...KEYS.map(arbProvider)),
    metrics: fc.tuple(...KEYS.map(() => fc.option(arbMetrics, { nil: undefined }))),
    breakers: fc.tuple(...KEYS.map(() => arbBreaker)),
    quotas: fc.tuple(...KEYS.map(() => arbQuota)),
    shares: fc.option(fc.tuple(...KEYS.map(() => fc.double({ min: 0, max: 1, noNaN: true })))),
    killed: fc.subarray(KEYS),
    routingKilled: fc.boolean(),
    pin: fc.option(fc.record({ provider: fc.constantFrom(...KEYS), reason: fc.constant("ops"), expiresAt: fc.integer({ min: NOW - 1000, max: NOW + 1000 }) })),
  })
  .map((r): TRouterState => {
    const pick = <T>(xs: (T | undefined)[]) => Object.fromEntries(KEYS.flatMap((k, i) => (xs[i] === undefined ? [] : [[k, xs[i]!]])));
    return {
      providers: r.providers,
      metrics: pick(r.metrics),
      breakers: pick(r.breakers),
      quotas: pick(r.quotas),
      shares: r.shares === null ? null : Object.fromEntries(KEYS.map((k, i) => [k, r.shares![i]!])),
      overrides: { killedProviders: r.killed, routingKilled: r.routingKilled, pin: r.pin },
    };
  });

const arbPolicy = fc
  .record({
    strategy: fc.constantFrom("weighted_score", "price_weighted", "price_latency_penalty", "weighted_round_robin", "priority_failover"),
    stale_policy: fc.constantFrom("safe_default", "penalty", "exclude"),
    guardrails: fc.record({ max_p95_ms: fc.option(fc.integer({ min: 100, max: 5000 }), { nil: undefined }) }),
    region: fc.constantFrom("EU", "US", "APAC"),
  })
  .map(({ region, ...p }) => ({
    policy: policy({
      ...p,
      providers: [],
      gates: ["supports_region", "compliance_allowed", "credentials_valid", "quota_available", "circuit_breaker_closed", "metric_fresh_or_safe_default"],
    } as Partial<TFactorListInput>),
    region,
  }));

describe("decide properties", () => {
  const PIN_OK = new Set(["not_killed", "supports_region", "compliance_allowed", "credentials_valid"]);

  it("never selects a provider failing a hard gate (a pin may override only breaker, quota and freshness)", () => {
    fc.assert(
      fc.property(arbState, arbPolicy, fc.integer(), (s, { policy: p, region }, seed) => {
        const d = run(s, p, seed, { ...ctx, region });
        if (d.selected === null) {
          expect(d.candidates.every((c) => !c.eligible || d.override === "routing_killed")).toBe(true);
          return;
        }
        const c = d.candidates.find((x) => x.provider === d.selected)!;
        if (d.reasonCode === "pinned") expect(c.gates.filter((g) => PIN_OK.has(g.gate)).every((g) => g.passed)).toBe(true);
        else {
          expect(c.passedGates).toBe(true);
          expect(c.gates.every((g) => g.passed)).toBe(true);
        }
        if (d.reasonCode !== "pinned" && d.reasonCode !== "routing_killed_static_order" && !(d.reasonCode === "pin_ineligible" && s.overrides?.routingKilled)) {
          expect(c.eligible).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("contributions sum exactly to the score; indices are within 0–100", () => {
    fc.assert(
      fc.property(arbState, arbPolicy, (s, { policy: p, region }) => {
        for (const c of run(s, p, 1, { ...ctx, region }).candidates) {
          if (c.score === null) continue;
          let sum = 0;
          for (const x of c.contributions) {
            sum += x.value;
            expect(x.index).toBeGreaterThanOrEqual(0);
            expect(x.index).toBeLessThanOrEqual(100);
          }
          expect(c.score).toBe(sum);
          expect(c.score).toBeGreaterThanOrEqual(0);
          expect(c.score).toBeLessThanOrEqual(100 + 1e-9);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("same inputs and seed give the same decision", () => {
    fc.assert(
      fc.property(arbState, arbPolicy, fc.integer(), (s, { policy: p, region }, seed) => {
        expect(run(s, p, seed, { ...ctx, region })).toEqual(run(structuredClone(s), p, seed, { ...ctx, region }));
      }),
      { numRuns: 200 },
    );
  });

  it("deciding again on a routing state gives what a fresh copy of it gives, at any later time; earlier records stay as they were", () => {
    fc.assert(
      fc.property(
        arbState,
        arbPolicy,
        // Steps across a second's boundary (countdowns, metric ages) and across the maximum metric age.
        fc.array(fc.oneof(fc.integer({ min: 0, max: 1_500 }), fc.integer({ min: 0, max: 150_000 })), { minLength: 2, maxLength: 8 }),
        fc.integer(),
        fc.boolean(),
        (s, { policy: p, region }, steps, seed, shadowed) => {
          const options = shadowed ? { shadow: { policy: p } } : undefined;
          const at = (t: number, st: TRouterState, k: number) =>
            decide({ ...ctx, region, requestId: `r${k}` }, st, p, createSimulatedClock(t), createSeededRandom(seed + k), options);
          let t = NOW;
          const given: [ReturnType<typeof decide>, string][] = [];
          steps.forEach((dt, k) => {
            t += dt;
            const reused = at(t, s, k);
            expect(reused).toEqual(at(t, structuredClone(s), k));
            given.push([reused, JSON.stringify(reused)]);
          });
          for (const [d, json] of given) expect(JSON.stringify(d)).toBe(json);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("selection probabilities over the eligible are >= 0 and sum to 1", () => {
    fc.assert(
      fc.property(arbState, arbPolicy, fc.integer(), (s, { policy: p, region }, seed) => {
        const d = run(s, p, seed, { ...ctx, region });
        const probs = d.candidates.map((c) => c.selectionProbability);
        for (const x of probs) expect(x).toBeGreaterThanOrEqual(0);
        const sum = probs.reduce((a, b) => a + b, 0);
        if (d.selected === null) expect(sum).toBe(0);
        else {
          expect(sum).toBeCloseTo(1, 9);
          expect(d.candidates.find((c) => c.provider === d.selected)!.selectionProbability).toBeGreaterThan(0);
        }
        for (const c of d.candidates) if (!c.eligible && c.provider !== d.selected) expect(c.selectionProbability).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
