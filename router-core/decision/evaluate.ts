import { isConstantOutcome, staticGateInput, validFrom, validUntil, type TGateInput, type TGateOutcome } from "../gates/gate";
import { statedAgeSeconds } from "../gates/metric-fresh-or-safe-default";
import { scoreInto, type TContribution, type TPrecomputed, type TStaleTreatment } from "../scoring/contributions";
import { checkGuardrails } from "../scoring/guardrails";
import type { TNormalization } from "../scoring/indices";
import type { TProviderInfo, TRequestContext, TRouterState, TShares } from "../types";
import type { TCompiledPolicy, TRegionPlan } from "./compile";
import type { TCandidateLookups, TEvaluation } from "./evaluation";
import { buildLookups, lookupsFor, NO_TAGS, sharedOutcomes } from "./lookups";
import { metricAgeSecondsAt, type TCandidateRecord, type TCandidateWork } from "./record";

/** A record while evaluateCandidates fills it in; it is handed out as an immutable TCandidateRecord. */
type TRecordDraft = { -readonly [K in keyof TCandidateRecord]: TCandidateRecord[K] };

/**
 * What one evaluation's phases share. One instance (PASS) serves every evaluation: evaluations
 * never nest and keep no reference to it, so the phases allocate nothing to talk to each other.
 */
type TPass = {
  compiled: TCompiledPolicy | null;
  lookups: TCandidateLookups | null;
  candidates: readonly TProviderInfo[];
  fixed: readonly (readonly (TGateOutcome | null)[])[];
  killed: readonly string[];
  /** Gate position run per request despite a plan outcome (request compliance tags), or -1. */
  complianceAt: number;
  penalised: boolean;
  now: number;
  /** Whether this evaluation may be kept for later decisions, and from when until when. */
  keepable: boolean;
  from: number;
  until: number;
  /** Whether every outcome of the last runGates() was a constant. */
  constant: boolean;
};

const PASS: TPass = {
  compiled: null,
  lookups: null,
  candidates: [],
  fixed: [],
  killed: NO_TAGS,
  complianceAt: -1,
  penalised: false,
  now: 0,
  keepable: false,
  from: -Infinity,
  until: Infinity,
  constant: true,
};

/**
 * Reused by every evaluation: gates and scoring read them synchronously and keep no reference,
 * and evaluations never nest, so one instance each saves two allocations per decision.
 */
const GATE_INPUT: TGateInput = staticGateInput(
  { key: "", regions: [], complianceTags: [], costPerRequest: 0, credentialStatus: "unknown", enabled: false },
  "",
  NO_TAGS,
  null,
);
const NORM: TNormalization = { minP95: Infinity, minP99: Infinity, minCost: Infinity };
const PRE: TPrecomputed = { raw: [], index: new Float64Array(0), at: 0 };
/** One candidate's gate outcomes as they are worked out, before they are compared with the ones its record got last time. */
let gateScratch: TGateOutcome[] = [];
const NO_CONTRIBUTIONS: readonly TContribution[] = Object.freeze([]);

function splitList(value: string | undefined): readonly string[] {
  if (value === undefined || value === "") return NO_TAGS;
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
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
 * breaker's "next attempt in 12s" holds for a second, and so does a stale candidate's "metrics
 * 600s old" with the penalty that states the same age. An unmarked outcome is never reused.
 */
export function evaluateCandidates(
  compiled: TCompiledPolicy,
  state: TRouterState,
  ctx: Pick<TRequestContext, "region" | "attributes">,
  now: number,
): TEvaluation {
  const pass = PASS;
  const region = ctx.region;
  const plan = compiled.plan(state.providers, region);
  const only = ctx.attributes?.providers;
  const compliance = ctx.attributes?.compliance;
  const killedProviders = state.overrides?.killedProviders ?? NO_TAGS;
  if (only === undefined) {
    const lookups = lookupsFor(plan, state, region, compiled.scores);
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
    pass.candidates = plan.candidates;
    pass.fixed = plan.fixed;
    pass.lookups = lookups;
  } else {
    restrictCandidates(pass, plan, splitList(only), state, region, compiled);
  }
  const requested = splitList(compliance);
  beginPass(pass, compiled, plan, region, requested, killedProviders, now);
  pass.keepable = only === undefined && requested.length === 0;

  const candidates = pass.candidates;
  const work: TCandidateWork[] = new Array(candidates.length);
  for (let i = 0; i < candidates.length; i++) work[i] = gateCandidate(pass, i);
  const eligible: TCandidateWork[] = [];
  const anyPassed = scoreGated(pass, work, eligible);
  const leastBad = eligible.length === 0 && anyPassed;
  if (leastBad) admitLeastBad(work, eligible);
  return finishPass(pass, work, eligible, leastBad);
}

/** The caller's `providers` attribute keeps only the listed candidates, with lookups of their own. */
function restrictCandidates(pass: TPass, plan: TRegionPlan, allowed: readonly string[], state: TRouterState, region: string, compiled: TCompiledPolicy): void {
  const keep = plan.candidates.map((p) => allowed.includes(p.key));
  pass.candidates = plan.candidates.filter((_, i) => keep[i]);
  pass.fixed = plan.fixed.filter((_, i) => keep[i]);
  // A caller-restricted candidate list is a new array per request: its lookups are not cached.
  pass.lookups = buildLookups(pass.candidates, state, region, compiled.scores);
}

/** Resets the shared gate input, normalisation and pass state for one evaluation. */
function beginPass(
  pass: TPass,
  compiled: TCompiledPolicy,
  plan: TRegionPlan,
  region: string,
  requested: readonly string[],
  killed: readonly string[],
  now: number,
): void {
  const policy = compiled.policy;
  const ruleTags = plan.ruleCompliance;
  const requiredCompliance = requested.length === 0 ? ruleTags : [...new Set([...ruleTags, ...requested])];
  // Request-level compliance tags make compliance_allowed request-dependent: run it, not the plan's outcome.
  pass.complianceAt = requested.length === 0 ? -1 : compiled.complianceGate;
  pass.compiled = compiled;
  pass.killed = killed;
  pass.penalised = policy.stale_policy === "penalty";
  pass.now = now;
  pass.from = -Infinity;
  pass.until = Infinity;
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
}

/**
 * Step 2 for candidate i: its staleness, its hard gates and its record so far; a gate-passing
 * candidate's latency and cost join the normalisation.
 */
function gateCandidate(pass: TPass, i: number): TCandidateWork {
  const compiled = pass.compiled!;
  const lookups = pass.lookups!;
  const now = pass.now;
  const info = pass.candidates[i]!;
  const key = info.key;
  const metrics = lookups.metrics[i];
  const updatedAt = metrics?.updatedAt ?? null;
  const ageMs = updatedAt === null ? null : now - updatedAt;
  const stale = ageMs === null || ageMs > compiled.maxMetricAgeMs;
  if (updatedAt !== null) {
    // Stale from the first millisecond after the maximum age on.
    const edge = updatedAt + compiled.maxMetricAgeMs;
    if (stale) pass.from = Math.max(pass.from, edge + 1);
    else pass.until = Math.min(pass.until, edge);
  }
  const breaker = lookups.breakers[i];
  const quota = lookups.quotas[i];
  const gateInput = GATE_INPUT;
  gateInput.provider = info;
  gateInput.breaker = breaker;
  gateInput.quota = quota;
  gateInput.killed = pass.killed.length !== 0 && pass.killed.includes(key);
  gateInput.metrics = metrics;
  gateInput.metricAgeSeconds = ageMs === null ? null : ageMs / 1000;
  gateInput.stale = stale;
  const passed = runGates(pass, pass.fixed[i]!);
  const n = compiled.gates.length;
  // A timed or other new outcome makes an array no later evaluation can share: not kept on the
  // (long-lived) lookups, where each such array would outlive the young generation.
  const outcomes = pass.constant ? sharedOutcomes(lookups, i, gateScratch, n) : gateScratch.slice(0, n);
  if (passed) {
    const norm = NORM;
    const p95 = metrics?.p95Ms;
    const p99 = metrics?.p99Ms;
    if (p95 != null && p95 < norm.minP95) norm.minP95 = p95;
    if (p99 != null && p99 < norm.minP99) norm.minP99 = p99;
    if (info.costPerRequest < norm.minCost) norm.minCost = info.costPerRequest;
  }
  // A penalised candidate's record states its age in whole seconds, as its gate's outcome does,
  // and that outcome's window already bounds how long this evaluation is kept.
  const treatment: TStaleTreatment = !stale ? "fresh" : pass.penalised && ageMs !== null ? "penalty" : "safe_default";
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
  return { index: i, info, metrics, breaker, quota, treatment, record };
}

/**
 * Runs the gates on GATE_INPUT into gateScratch (the plan's outcome where it has one) and
 * returns whether all passed. The plan's outcomes are constants; the others decide what may be
 * kept, and until when; `pass.constant` says whether every outcome was a constant.
 */
function runGates(pass: TPass, row: readonly (TGateOutcome | null)[]): boolean {
  const gates = pass.compiled!.gates;
  if (gateScratch.length < gates.length) gateScratch = new Array(gates.length);
  const scratch = gateScratch;
  const complianceAt = pass.complianceAt;
  let passed = true;
  let constant = true;
  let keepable = pass.keepable;
  let from = pass.from;
  let until = pass.until;
  for (let g = 0; g < gates.length; g++) {
    let o = row[g];
    if (o == null || g === complianceAt) {
      o = gates[g]!.fn(GATE_INPUT);
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
  pass.keepable = keepable;
  pass.from = from;
  pass.until = until;
  pass.constant = constant;
  return passed;
}

/**
 * Step 3 for every gate-passing candidate: contributions, score and soft guardrails; those
 * passing the guardrails join `eligible`. Returns whether any candidate passed the gates.
 */
function scoreGated(pass: TPass, work: readonly TCandidateWork[], eligible: TCandidateWork[]): boolean {
  const compiled = pass.compiled!;
  const lookups = pass.lookups!;
  const policy = compiled.policy;
  const norm = NORM;
  const specCount = compiled.scores.length;
  const penaltySlot = pass.penalised && policy.stale_penalty_points > 0 ? 1 : 0;
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
      const score = scoreInto(
        out,
        compiled.scores,
        c.metrics,
        c.info.costPerRequest,
        norm,
        c.treatment,
        policy.stale_penalty_points,
        r.metricsAt === null ? null : statedAgeSeconds(metricAgeSecondsAt(r.metricsAt, pass.now)!),
        pre,
      );
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
  return anyPassed;
}

/** Least-bad rule: smallest total relative excess; ties go to the higher score, then priority. */
function admitLeastBad(work: readonly TCandidateWork[], eligible: TCandidateWork[]): void {
  let best: TCandidateWork | null = null;
  for (const c of work) {
    const g = c.record.guardrail;
    if (g === null) continue;
    const b = best?.record;
    if (b === undefined || g.excess < b.guardrail!.excess || (g.excess === b.guardrail!.excess && c.record.score! > b.score!)) {
      best = c;
    }
  }
  (best!.record as TRecordDraft).eligible = true;
  eligible.push(best!);
}

/** The evaluation, kept on the lookups for later decisions when nothing in it depends on this request or moment. */
function finishPass(pass: TPass, work: TCandidateWork[], eligible: TCandidateWork[], leastBad: boolean): TEvaluation {
  const lookups = pass.lookups!;
  const given: TCandidateRecord[] = new Array(work.length);
  for (let i = 0; i < work.length; i++) given[i] = work[i]!.record;
  const evaluation: TEvaluation = { work, eligible, leastBad, shares: lookups.sharesOf as TShares | null | undefined, given, givenList: null };
  if (pass.keepable && pass.from <= pass.until) {
    lookups.evaluation = evaluation;
    lookups.evaluationKilled = pass.killed;
    lookups.evaluationFrom = pass.from;
    lookups.evaluationUntil = pass.until;
  }
  return evaluation;
}
