import { isConstantOutcome, validFrom, validUntil, type TGateInput, type TGateOutcome } from "../gates/gate";
import { precomputeInto, scoreInto, type TContribution, type TPrecomputed, type TStaleTreatment, type TWeightedSpec } from "../scoring/contributions";
import { checkGuardrails } from "../scoring/guardrails";
import type { TNormalization } from "../scoring/indices";
import type { TProviderInfo, TRequestContext, TRouterState, TShares } from "../types";
import type { TCandidateLookups, TCompiledPolicy, TRegionPlan } from "./compile";
import { metricAgeSecondsAt, type TCandidateRecord, type TCandidateWork } from "./record";

/** A record while evaluateCandidates fills it in; it is handed out as an immutable TCandidateRecord. */
type TRecordDraft = { -readonly [K in keyof TCandidateRecord]: TCandidateRecord[K] };

export type TEvaluation = {
  /**
   * Per candidate, in priority order. The records have selectionProbability 0 until the first
   * decision made from this evaluation writes its probabilities into them (decide.ts); later
   * decisions' records differ from these in selectionProbability at most.
   */
  work: readonly TCandidateWork[];
  /** Eligible candidates in priority order. */
  eligible: readonly TCandidateWork[];
  /** True when every gate-passing candidate broke a guardrail and the least-bad rule chose. */
  leastBad: boolean;
  /** The shares object the records' `share` was read from (TStrategyInput.recordedShares). */
  shares: TShares | null | undefined;
  /**
   * The records the last decision made from this evaluation gave out (with its selection
   * probabilities) and the array of them: decide.ts reuses both while the probabilities come out
   * the same. Before the first decision, the records in `work`, still writable.
   */
  given: TCandidateRecord[];
  givenList: readonly TCandidateRecord[] | null;
};

const NO_TAGS: readonly string[] = [];

/**
 * Whether any breaker is keyed per region. Building `provider|region` keys costs a string
 * concatenation and flattening per candidate, so it is skipped when no such key exists; breaker
 * maps are replaced, not mutated, by the controller, so caching per object is safe.
 */
const regionalCache = new WeakMap<object, boolean>();
function hasRegionalBreakers(breakers: Readonly<Record<string, unknown>>): boolean {
  let v = regionalCache.get(breakers);
  if (v === undefined) {
    v = Object.keys(breakers).some((k) => k.includes("|"));
    regionalCache.set(breakers, v);
  }
  return v;
}

/**
 * Reused by every evaluation: gates and scoring read them synchronously and keep no reference,
 * and evaluations never nest, so one instance each saves two allocations per decision.
 */
const GATE_INPUT: TGateInput = {
  provider: { key: "", regions: [], complianceTags: [], costPerRequest: 0, credentialStatus: "unknown", enabled: false },
  region: "",
  requiredCompliance: NO_TAGS,
  regionAllowList: null,
  breaker: undefined,
  quota: undefined,
  killed: false,
  metrics: undefined,
  metricAgeSeconds: null,
  stale: true,
  maxMetricAgeSeconds: 0,
  stalePolicy: "safe_default",
  now: 0,
};
const NORM: TNormalization = { minP95: Infinity, minP99: Infinity, minCost: Infinity };
const PRE: TPrecomputed = { raw: [], index: new Float64Array(0), at: 0 };
/** One candidate's gate outcomes as they are worked out, before they are compared with the ones its record got last time. */
let gateScratch: TGateOutcome[] = [];
const NO_CONTRIBUTIONS: readonly TContribution[] = Object.freeze([]);

/**
 * The candidate's gate outcomes as an array records share: the one the previous decision on this
 * state got when every outcome is the same object (constant outcomes), otherwise a new one, kept
 * for the next decision. Not frozen (freezing costs more than building it); nothing writes to it.
 */
function sharedOutcomes(lookups: TCandidateLookups, i: number, scratch: readonly TGateOutcome[], n: number): readonly TGateOutcome[] {
  const prev = lookups.outcomes[i];
  if (prev !== undefined && prev.length === n) {
    let same = true;
    for (let g = 0; g < n; g++) {
      if (prev[g] !== scratch[g]) {
        same = false;
        break;
      }
    }
    if (same) return prev;
  }
  const next = scratch.slice(0, n);
  lookups.outcomes[i] = next;
  return next;
}

/**
 * The state's metrics, breaker, quota and share of each candidate, with its raw metrics and
 * own-metric indices (scoring/contributions.ts), index-aligned with `candidates`.
 */
function buildLookups(candidates: readonly TProviderInfo[], state: TRouterState, region: string, specs: readonly TWeightedSpec[]): TCandidateLookups {
  const regional = hasRegionalBreakers(state.breakers);
  const n = candidates.length;
  const out: TCandidateLookups = {
    metricsOf: state.metrics,
    breakersOf: state.breakers,
    quotasOf: state.quotas,
    sharesOf: state.shares,
    metrics: new Array(n),
    breakers: new Array(n),
    quotas: new Array(n),
    shares: new Array(n),
    raw: new Array(n * specs.length),
    index: new Float64Array(n * specs.length),
    outcomes: new Array(n),
    scored: new Array(n),
    evaluation: null,
    evaluationKilled: NO_TAGS,
    evaluationFrom: Infinity,
    evaluationUntil: -Infinity,
  };
  for (let i = 0; i < n; i++) {
    const key = candidates[i]!.key;
    out.metrics[i] = state.metrics[key];
    out.breakers[i] = (regional ? state.breakers[key + "|" + region] : undefined) ?? state.breakers[key];
    out.quotas[i] = state.quotas[key];
    out.shares[i] = state.shares?.[key] ?? null;
    precomputeInto(out.raw, out.index, i * specs.length, specs, out.metrics[i], candidates[i]!.costPerRequest);
  }
  return out;
}

/**
 * buildLookups for the plan's candidates, once per state rather than once per decision: keyed
 * loads with a provider key on these maps are megamorphic (a hash probe each, four per
 * candidate), and the maps change only when the data plane replaces them (every refresh
 * interval), so the arrays are rebuilt then and reused by every decision in between. Kept on the
 * plan; a plan alternately used with two states rebuilds.
 */
function lookupsFor(plan: TRegionPlan, state: TRouterState, region: string, specs: readonly TWeightedSpec[]): TCandidateLookups {
  const cached = plan.lookups;
  if (
    cached !== null &&
    cached.metricsOf === state.metrics &&
    cached.breakersOf === state.breakers &&
    cached.quotasOf === state.quotas &&
    cached.sharesOf === state.shares
  ) {
    return cached;
  }
  plan.lookups = buildLookups(plan.candidates, state, region, specs);
  return plan.lookups;
}

function splitList(value: string | undefined): readonly string[] {
  if (value === undefined || value === "") return NO_TAGS;
  return value.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/**
 * Steps 2 and 3 of a decision for every candidate: hard gates, then (for those passing) indices,
 * contributions, score and soft guardrails. Shared by decide() and scoreCandidates(), so the
 * controller ranks providers with exactly the numbers the data plane logs.
 *
 * The result depends on the routing state, the request's own attributes and the time. Without
 * request attributes it is kept on the state's lookups and returned again to later decisions on
 * the same state (the same map objects and killed list) for as long as the time cannot change it:
 * between the moments the metrics of one candidate or another go stale, and within the window of
 * every gate outcome. Gates mark outcomes that do not depend on the time as constants and
 * outcomes that do as timed, with the window in which they read the same (gates/gate.ts): an open
 * breaker's "next attempt in 12s" holds for a second. An unmarked outcome is never reused. A
 * stale penalty depends on the metric age to the millisecond: never kept.
 */
export function evaluateCandidates(
  compiled: TCompiledPolicy,
  state: TRouterState,
  ctx: Pick<TRequestContext, "region" | "attributes">,
  now: number,
): TEvaluation {
  const policy = compiled.policy;
  const region = ctx.region;
  const plan = compiled.plan(state.providers, region);
  let candidates = plan.candidates;
  let fixed = plan.fixed;
  const only = ctx.attributes?.providers;
  const compliance = ctx.attributes?.compliance;
  const killedProviders = state.overrides?.killedProviders ?? NO_TAGS;
  let lookups: TCandidateLookups;
  if (only === undefined) {
    lookups = lookupsFor(plan, state, region, compiled.scores);
    const kept = lookups.evaluation;
    if (
      kept !== null &&
      now <= lookups.evaluationUntil &&
      now >= lookups.evaluationFrom &&
      lookups.evaluationKilled === killedProviders &&
      (compliance === undefined || compliance === "")
    ) {
      return kept;
    }
  } else {
    const allowed = splitList(only);
    const keep = candidates.map((p) => allowed.includes(p.key));
    candidates = candidates.filter((_, i) => keep[i]);
    fixed = fixed.filter((_, i) => keep[i]);
    // A caller-restricted candidate list is a new array per request: its lookups are not cached.
    lookups = buildLookups(candidates, state, region, compiled.scores);
  }
  const requested = splitList(compliance);
  const ruleTags = plan.ruleCompliance;
  const requiredCompliance = requested.length === 0 ? ruleTags : [...new Set([...ruleTags, ...requested])];
  // Request-level compliance tags make compliance_allowed request-dependent: run it, not the plan's outcome.
  const complianceAt = requested.length === 0 ? -1 : compiled.complianceGate;
  const gateInput = GATE_INPUT;
  gateInput.region = region;
  gateInput.requiredCompliance = requiredCompliance;
  gateInput.regionAllowList = plan.regionAllowList;
  gateInput.maxMetricAgeSeconds = policy.max_metric_age_seconds;
  gateInput.stalePolicy = policy.stale_policy;
  gateInput.now = now;
  const norm = NORM;
  norm.minP95 = Infinity;
  norm.minP99 = Infinity;
  norm.minCost = Infinity;
  const penalised = policy.stale_policy === "penalty";
  const specCount = compiled.scores.length;
  const penaltySlot = penalised && policy.stale_penalty_points > 0 ? 1 : 0;
  const work: TCandidateWork[] = new Array(candidates.length);
  const gates = compiled.gates;
  // Whether this evaluation may be kept for later decisions, and until when (see above).
  let keepable = only === undefined && requested.length === 0;
  let from = -Infinity;
  let until = Infinity;

  for (let i = 0; i < candidates.length; i++) {
    const info = candidates[i]!;
    const row = fixed[i]!;
    const key = info.key;
    const metrics = lookups.metrics[i];
    const updatedAt = metrics?.updatedAt ?? null;
    const ageMs = updatedAt === null ? null : now - updatedAt;
    const stale = ageMs === null || ageMs > compiled.maxMetricAgeMs;
    if (updatedAt !== null) {
      // Stale from the first millisecond after the maximum age on.
      const edge = updatedAt + compiled.maxMetricAgeMs;
      if (stale) from = Math.max(from, edge + 1);
      else until = Math.min(until, edge);
    }
    const breaker = lookups.breakers[i];
    const quota = lookups.quotas[i];
    gateInput.provider = info;
    gateInput.breaker = breaker;
    gateInput.quota = quota;
    gateInput.killed = killedProviders.length !== 0 && killedProviders.includes(key);
    gateInput.metrics = metrics;
    gateInput.metricAgeSeconds = ageMs === null ? null : ageMs / 1000;
    gateInput.stale = stale;
    if (gateScratch.length < gates.length) gateScratch = new Array(gates.length);
    const scratch = gateScratch;
    let passed = true;
    // The plan's outcomes are constants; the others decide what may be kept, and until when.
    let constant = true;
    for (let g = 0; g < gates.length; g++) {
      let o = row[g];
      if (o == null || g === complianceAt) {
        o = gates[g]!.fn(gateInput);
        if (!isConstantOutcome(o)) {
          constant = false;
          const a = validFrom(o);
          const b = validUntil(o);
          if (a === undefined || b === undefined) keepable = false;
          else {
            if (a > from) from = a;
            if (b < until) until = b;
          }
        }
      }
      scratch[g] = o;
      if (!o.passed) passed = false;
    }
    // A timed or other new outcome makes an array no later evaluation can share: not kept on the
    // (long-lived) lookups, where each such array would outlive the young generation.
    const outcomes = constant ? sharedOutcomes(lookups, i, scratch, gates.length) : scratch.slice(0, gates.length);
    if (passed) {
      const p95 = metrics?.p95Ms;
      const p99 = metrics?.p99Ms;
      if (p95 != null && p95 < norm.minP95) norm.minP95 = p95;
      if (p99 != null && p99 < norm.minP99) norm.minP99 = p99;
      if (info.costPerRequest < norm.minCost) norm.minCost = info.costPerRequest;
    }
    const treatment: TStaleTreatment = !stale ? "fresh" : penalised && ageMs !== null ? "penalty" : "safe_default";
    if (treatment === "penalty") keepable = false;
    const record: TRecordDraft = {
      provider: key,
      priority: i,
      gates: outcomes,
      passedGates: passed,
      guardrail: null,
      eligible: false,
      contributions: NO_CONTRIBUTIONS,
      score: null,
      share: lookups.shares[i]!,
      selectionProbability: 0,
      metricsAt: updatedAt,
      stale,
      sampleCount: metrics?.sampleCount ?? 0,
      metricScope: metrics?.scope ?? "none",
    };
    work[i] = { index: i, info, metrics, breaker, quota, treatment, record };
  }

  const eligible: TCandidateWork[] = [];
  let anyPassed = false;
  const pre = PRE;
  pre.raw = lookups.raw;
  pre.index = lookups.index;
  for (let i = 0; i < work.length; i++) {
    const c = work[i]!;
    const r = c.record as TRecordDraft;
    if (!r.passedGates) continue;
    anyPassed = true;
    // The same state, normalisation and treatment give the same contributions: reuse the last
    // record's (not for the stale penalty, which depends on the metric age, i.e. on the time).
    const hit = lookups.scored[i];
    if (
      hit !== undefined &&
      c.treatment !== "penalty" &&
      hit.treatment === c.treatment &&
      hit.minP95 === norm.minP95 &&
      hit.minP99 === norm.minP99 &&
      hit.minCost === norm.minCost
    ) {
      r.contributions = hit.contributions;
      r.score = hit.score;
    } else {
      pre.at = i * specCount;
      // Sized up front: growing an empty array as contributions arrive reallocates it.
      const out: TContribution[] = new Array(c.treatment === "penalty" ? specCount + penaltySlot : specCount);
      const score = scoreInto(out, compiled.scores, c.metrics, c.info.costPerRequest, norm, c.treatment, policy.stale_penalty_points, metricAgeSecondsAt(r.metricsAt, now), pre);
      r.contributions = out;
      r.score = score;
      if (c.treatment !== "penalty") {
        lookups.scored[i] = { minP95: norm.minP95, minP99: norm.minP99, minCost: norm.minCost, treatment: c.treatment, contributions: r.contributions, score };
      }
    }
    const confidence = r.stale ? 0 : (c.metrics?.confidence ?? 0);
    r.guardrail = checkGuardrails(policy.guardrails, c.metrics?.p95Ms ?? null, c.info.costPerRequest, confidence);
    if (r.guardrail.passed) {
      r.eligible = true;
      eligible.push(c);
    }
  }

  let leastBad = false;
  if (eligible.length === 0 && anyPassed) {
    // Least-bad rule: smallest total relative excess; ties go to the higher score, then priority.
    let best: TCandidateWork | null = null;
    for (const c of work) {
      const g = c.record.guardrail;
      if (g === null) continue;
      const b = best?.record;
      if (
        b === undefined ||
        g.excess < b.guardrail!.excess ||
        (g.excess === b.guardrail!.excess && c.record.score! > b.score!)
      ) {
        best = c;
      }
    }
    (best!.record as TRecordDraft).eligible = true;
    eligible.push(best!);
    leastBad = true;
  }

  const given: TCandidateRecord[] = new Array(work.length);
  for (let i = 0; i < work.length; i++) given[i] = work[i]!.record;
  const evaluation: TEvaluation = { work, eligible, leastBad, shares: lookups.sharesOf as TShares | null | undefined, given, givenList: null };
  if (keepable && from <= until) {
    lookups.evaluation = evaluation;
    lookups.evaluationKilled = killedProviders;
    lookups.evaluationFrom = from;
    lookups.evaluationUntil = until;
  }
  return evaluation;
}
