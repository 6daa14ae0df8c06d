import { describe, expect, it } from "vitest";
import { createSimulatedClock, createSeededRandom, decide, parseFactorList, type TDecisionRecord, type TRouterState } from "../../../router-core/index";
import { compactAnswer, compactOfFull, decisionBody, listId } from "./body";

const NOW = 1_750_000_000_000;
const parsed = parseFactorList({
  operation: "SEND_SMS",
  gates: ["supports_region", "circuit_breaker_closed", "metric_fresh_or_safe_default"],
  scores: { completion_rate_5m: { weight: 0.7, direction: "higher" }, cost_per_request: { weight: 0.3, direction: "lower" } },
  fallback_policy: "use_secondary_then_queue",
});
if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
const policy = parsed.value;

const state = (extra: Partial<TRouterState> = {}): TRouterState => ({
  providers: ["a", "b", "c"].map((key, i) => ({
    key,
    regions: ["EU"],
    complianceTags: [],
    costPerRequest: 0.01 + i / 1000,
    credentialStatus: "valid" as const,
    enabled: true,
  })),
  metrics: Object.fromEntries(
    ["a", "b"].map((k) => [
      k,
      {
        sampleCount: 400,
        completionRate: 0.97,
        errorRate: 0.01,
        p95Ms: 300,
        p99Ms: 500,
        recentIncidents: 0,
        confidence: 1,
        updatedAt: NOW - 5_000,
        scope: "region" as const,
      },
    ]),
  ),
  breakers: {},
  quotas: {},
  shares: { a: 0.6, b: 0.3, c: 0.1 },
  policyVersion: "v1",
  ...extra,
});

const at = (s: TRouterState, t: number, k: number, shadow = false) =>
  decide(
    { operation: "SEND_SMS", region: "EU", requestId: `r${k}`, decisionId: `d${k}` },
    s,
    policy,
    createSimulatedClock(t),
    createSeededRandom(k),
    shadow ? { shadow: { policy, policyVersion: "v2" } } : undefined,
  );

const decisionBodyJson = (id: string, d: TDecisionRecord, extra: Record<string, unknown>) => decisionBody(id, d, extra).text;

describe("decisionBody", () => {
  it("writes exactly what JSON.stringify of the spread record writes, also when the candidate text is reused", () => {
    const s = state();
    const first = at(s, NOW, 1);
    const second = at(s, NOW + 1_000, 2, true);
    expect(second.candidates).toBe(first.candidates);
    const extra = { degraded: false, stateAgeMs: 12 };
    for (const [k, d] of [first, second].entries()) {
      expect(decisionBodyJson(`id${k}`, d, extra)).toBe(JSON.stringify({ decisionId: `id${k}`, ...d, ...extra }));
      // The parts the answer is written in are the same bytes, multi-byte characters included.
      const { parts } = decisionBody(`id${k} ü 東京`, d, extra);
      expect(Buffer.concat([Buffer.from(parts.before), parts.list, Buffer.from(parts.after)]).toString("utf8")).toBe(
        JSON.stringify({ decisionId: `id${k} ü 東京`, ...d, ...extra }),
      );
    }
    // Nothing eligible: a fallback, no selection; and the execute path's extra keys.
    const down = at(
      state({
        breakers: { a: { state: "open", probeAvailable: false }, b: { state: "open", probeAvailable: false }, c: { state: "open", probeAvailable: false } },
      }),
      NOW,
      3,
    );
    expect(down.selected).toBeNull();
    const more = { mode: "execute", degraded: true, stateAgeMs: null };
    expect(decisionBodyJson("x", down, more)).toBe(JSON.stringify({ decisionId: "x", ...down, ...more }));
    expect(JSON.parse(decisionBodyJson("x", down, {}))).toEqual(JSON.parse(JSON.stringify({ decisionId: "x", ...down })));
  });

  it("escapes strings and writes numbers and extra values exactly as JSON.stringify does", () => {
    const odd = decide(
      { operation: "SEND_SMS", region: "EU", requestId: 'q"\\ü東京\n\u2028\u0001\ud800x\u007f', decisionId: "d" },
      state(),
      policy,
      createSimulatedClock(NOW),
      createSeededRandom(5),
      { shadow: { policy, policyVersion: 'v"2' } },
    );
    const records = [odd, { ...odd, scoreMargin: Number.NaN, metricAgeSeconds: -0 }, { ...odd, scoreMargin: Infinity, metricAgeSeconds: 1e-7, at: 1e21 }];
    const extra = { 'k"\n': "v\\", n: -0, missing: undefined, f: () => 1, nested: { a: [1, "b", null] }, big: 12345678901234567890, ok: true, none: null };
    for (const d of records) {
      expect(decisionBodyJson('id"\t', d, extra)).toBe(JSON.stringify({ decisionId: 'id"\t', ...d, ...extra }));
    }
  });

  it("splits the stored record from its candidate list: the list's text and content id are shared while the list is", () => {
    const s = state();
    const first = decisionBody("a", at(s, NOW, 1), { degraded: false });
    const second = decisionBody("b", at(s, NOW + 1_000, 2), { degraded: false });
    expect(second.stored.list).toBe(first.stored.list);
    for (const b of [first, second]) {
      const whole = JSON.parse(b.text) as Record<string, unknown>;
      expect(JSON.parse(b.stored.text)).toEqual({ ...whole, candidates: null });
      expect(b.stored.list.json).toBe(JSON.stringify(whole.candidates));
      // Putting the list where the placeholder stands gives the answer back.
      expect(b.stored.text.replace('"candidates":null', `"candidates":${b.stored.list.json}`)).toBe(b.text);
    }
    expect(first.stored.list.id).toBe(listId(first.stored.list.json));
    expect(first.stored.list.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // Another state with other metrics: another list, another id.
    const other = decisionBody("c", at(state({ shares: { a: 0.2, b: 0.7, c: 0.1 } }), NOW, 3), {});
    expect(other.stored.list.id).not.toBe(first.stored.list.id);
  });
});

/** The compact answer spelled out: the order is the eligible candidates, the selected one first, then by score. */
function expectedCompact(id: string, d: TDecisionRecord, degraded: boolean): string {
  const eligible = d.candidates.filter((c) => c.eligible).sort((a, b) => (b.score ?? -Infinity) - (a.score ?? -Infinity) || (b.share ?? 0) - (a.share ?? 0));
  const order = [...eligible.filter((c) => c.provider === d.selected), ...eligible.filter((c) => c.provider !== d.selected)];
  return JSON.stringify({
    decisionId: id,
    operation: d.operation,
    region: d.region,
    requestId: d.requestId,
    policyVersion: d.policyVersion,
    selected: d.selected,
    reasonCode: d.reasonCode,
    fallback: d.fallback,
    degraded,
    order: order.map((c) => ({ provider: c.provider, selectionProbability: c.selectionProbability })),
  });
}

describe("compactAnswer", () => {
  it("is the record's actionable fields and failover order, also when its text is reused across decisions on one list", () => {
    const s = state();
    // Many seeds on one routing state: one candidate array, different selections.
    const decisions = Array.from({ length: 40 }, (_, k) => at(s, NOW + k, 10 + k));
    expect(new Set(decisions.map((d) => d.candidates)).size).toBe(1);
    expect(new Set(decisions.map((d) => d.selected)).size).toBeGreaterThan(1);
    for (const [k, d] of decisions.entries()) {
      for (const degraded of [false, true]) expect(compactAnswer(`id-${k}`, d, degraded)).toBe(expectedCompact(`id-${k}`, d, degraded));
    }
    // A requestId that needs escaping, and a decision with a fallback (nothing eligible).
    const odd = decide(
      { operation: "SEND_SMS", region: "EU", requestId: 'q"\\ü東京\n', decisionId: "x" },
      s,
      policy,
      createSimulatedClock(NOW),
      createSeededRandom(7),
    );
    expect(JSON.parse(compactAnswer("id-odd", odd, false)).requestId).toBe('q"\\ü東京\n');
    expect(compactAnswer("id-odd", odd, false)).toBe(expectedCompact("id-odd", odd, false));
    const down = at(
      state({
        breakers: { a: { state: "open", probeAvailable: false }, b: { state: "open", probeAvailable: false }, c: { state: "open", probeAvailable: false } },
      }),
      NOW,
      3,
    );
    expect(down.fallback).not.toBeNull();
    expect(compactAnswer("id-down", down, false)).toBe(expectedCompact("id-down", down, false));
    // A replay's compact answer, from the full text the log holds, is the same text.
    for (const d of [decisions[0]!, down]) {
      const full = decisionBody("id-r", d, { degraded: false, stateAgeMs: 3 }).text;
      expect(compactOfFull(full)).toBe(compactAnswer("id-r", d, false));
    }
  });
});
