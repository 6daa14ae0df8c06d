import type { Clock } from "../clock";
import { resolveFallback, type TFallbackDecision } from "../control/fallback";
import type { TGateInput, TGateOutcome } from "../gates/gate";
import type { TFactorList } from "../policy/schema";
import type { Random } from "../random";
import type { TRequestContext, TRouterState, TShares } from "../types";
import { compilePolicy, type TCompiledPolicy } from "./compile";
import { evaluateCandidates } from "./evaluate";
import type { TEvaluation } from "./evaluation";
import type { TReasonCode } from "./reason-codes";
import {
  metricAgeSecondsAt,
  type TCandidateRecord,
  type TCandidateWork,
  type TDecisionRecord,
  type TOverrideApplied,
  type TPriceEvidence,
  type TShadowResult,
} from "./record";

export type TShadowPolicy = {
  policy: TFactorList;
  policyVersion?: string;
  /**
   * Shares to select by when the shadow uses weighted_score. Omitted: all to the shadow's
   * top-scored eligible provider, the target its controller would steer toward, because a shadow
   * policy has no controller of its own.
   */
  shares?: TShares | null;
};

export type TDecideOptions = { shadow?: TShadowPolicy | null };

type TRouted = {
  evaluation: TEvaluation;
  selected: TCandidateWork | null;
  reasonCode: TReasonCode;
  override: TOverrideApplied;
  fallback: TFallbackDecision | null;
  scoreMargin: number | null;
  /** Per candidate (work index), the probability this decision gave it; valid until the next route(). */
  probabilities: Float64Array;
  /** The pinned candidate's gate outcomes with the pin gates the policy does not list, when it has any. */
  pinGates: { index: number; gates: readonly TGateOutcome[] } | null;
  strategyEvidence?: TPriceEvidence;
};

/**
 * One routing decision, in this order: overrides, hard gates, soft
 * guardrails, selection by the strategy, fallback when nothing is eligible, and the full record.
 * Pure: the same inputs, clock reading and random stream give the same record. Exactly one
 * random draw is taken per call, shadow or not, so a shadow policy never perturbs the active
 * stream; the shadow reuses the same draw (common random numbers make agreement meaningful).
 *
 * Candidate records are immutable and, on an unchanged routing state, the same objects from one
 * decision to the next while their fields come out the same (evaluate.ts; recordsOf below).
 */
export function decide(
  input: TRequestContext,
  state: TRouterState,
  policy: TFactorList,
  clock: Clock,
  random: Random,
  options?: TDecideOptions,
): TDecisionRecord {
  const now = clock.now();
  const u = random.next();
  const active = route(compilePolicy(policy), state, input, now, u, state.shares);
  // Before the shadow's route(), which reuses the probability buffer.
  const candidates = recordsOf(active);
  const selected = active.selected;
  let shadow: TShadowResult | null = null;
  if (options?.shadow) {
    const s = options.shadow;
    const r = route(compilePolicy(s.policy), state, input, now, u, s.shares === undefined ? TOP_SCORE : s.shares);
    const pick = r.selected?.record.provider ?? null;
    shadow = {
      policyVersion: s.policyVersion ?? null,
      selected: pick,
      reasonCode: r.reasonCode,
      agrees: pick === (selected?.record.provider ?? null),
      scoreMargin: r.scoreMargin,
    };
  }
  return {
    id: input.decisionId ?? input.requestId,
    at: now,
    operation: input.operation,
    region: input.region,
    requestId: input.requestId,
    policyVersion: state.policyVersion ?? null,
    strategy: policy.strategy,
    selected: selected?.record.provider ?? null,
    reasonCode: active.reasonCode,
    override: active.override,
    candidates,
    scoreMargin: active.scoreMargin,
    metricAgeSeconds: metricAgeSecondsAt(selected?.record.metricsAt ?? null, now),
    stale: selected?.record.stale ?? false,
    fallback: active.fallback,
    shadow,
    strategyEvidence: active.strategyEvidence,
  };
}

let probabilityBuffer: Float64Array = new Float64Array(16);
let eligibleBuffer: Float64Array = new Float64Array(16);

/** A zeroed buffer of at least n entries, reused by every route(): its contents are read before the next one. */
function zeroed(buffer: Float64Array, n: number): Float64Array {
  if (buffer.length < n) return new Float64Array(Math.max(n, 2 * buffer.length));
  // A loop: for a handful of entries, fill() costs more than the stores.
  for (let i = 0; i < n; i++) buffer[i] = 0;
  return buffer;
}

/**
 * The decision's candidate records: each candidate's evaluated record with the probability this
 * decision gave it. The first decision made from an evaluation writes the probabilities into its
 * new records; a later one gets the records the one before it got where the probability is the
 * same, and the same array when all are, else a copy with its own probability. Records and the
 * array are not frozen (freezing costs more than a decision): TCandidateRecord is readonly and
 * the decision's candidate list a readonly array, and nothing writes to either.
 */
function recordsOf(routed: TRouted): readonly TCandidateRecord[] {
  const ev = routed.evaluation;
  const given = ev.given;
  const n = given.length;
  const p = routed.probabilities;
  let list = ev.givenList;
  if (list === null) {
    for (let i = 0; i < n; i++) (given[i] as { selectionProbability: number }).selectionProbability = p[i]!;
    list = ev.givenList = given.slice();
  } else {
    let changed = false;
    for (let i = 0; i < n; i++) {
      const q = p[i]!;
      if (given[i]!.selectionProbability === q) continue;
      given[i] = { ...given[i]!, selectionProbability: q };
      changed = true;
    }
    if (changed) list = ev.givenList = given.slice();
  }
  const pinned = routed.pinGates;
  if (pinned === null) return list;
  const out = list.slice();
  out[pinned.index] = { ...out[pinned.index]!, gates: pinned.gates };
  return out;
}

function route(
  compiled: TCompiledPolicy,
  state: TRouterState,
  input: TRequestContext,
  now: number,
  u: number,
  shares: TShares | null | undefined | typeof TOP_SCORE,
): TRouted {
  const policy = compiled.policy;
  const evaluation = evaluateCandidates(compiled, state, input, now);
  const { work, eligible, leastBad } = evaluation;
  const scoreMargin = marginOf(eligible);
  const overrides = state.overrides;
  const probabilities = (probabilityBuffer = zeroed(probabilityBuffer, work.length));

  let override: TOverrideApplied = "none";
  let extraGates: TRouted["pinGates"] = null;
  const pin = overrides?.pin;
  if (pin) {
    if (pin.expiresAt <= now) override = "pin_expired";
    else {
      const pinned = work.find((c) => c.record.provider === pin.provider);
      if (pinned !== undefined) {
        const { passed, gates } = pinGates(compiled, pinned, input, now);
        if (gates !== pinned.record.gates) extraGates = { index: pinned.index, gates };
        if (passed) {
          probabilities[pinned.index] = 1;
          return { evaluation, selected: pinned, reasonCode: "pinned", override: "pinned", fallback: null, scoreMargin, probabilities, pinGates: extraGates };
        }
      }
      // The pin cannot bypass region, compliance, credentials or a kill: route as if unpinned and say so.
      override = "pin_ineligible";
    }
  }

  if (overrides?.routingKilled) {
    // Adaptive routing off: static priority order among providers passing the hard gates,
    // without soft guardrails or scores, i.e. the conventional primary/secondary baseline.
    for (const c of work) {
      if (c.record.passedGates) {
        probabilities[c.index] = 1;
        const reasonCode = override === "pin_ineligible" ? "pin_ineligible" : "routing_killed_static_order";
        return {
          evaluation,
          selected: c,
          reasonCode,
          override: override === "none" ? "routing_killed" : override,
          fallback: null,
          scoreMargin,
          probabilities,
          pinGates: extraGates,
        };
      }
    }
  } else if (eligible.length > 0) {
    const chosen = (eligibleBuffer = zeroed(eligibleBuffer, eligible.length));
    const { index, reasonCode, evidence } = compiled.strategy.select({
      eligible,
      shares: shares === TOP_SCORE ? topScoreShares(eligible) : shares,
      u,
      sequence: input.sequence,
      p99BaselineMs: policy.p99_baseline_ms,
      probabilities: chosen,
      recordedShares: evaluation.shares,
    });
    for (let k = 0; k < eligible.length; k++) probabilities[eligible[k]!.index] = chosen[k]!;
    const code: TReasonCode = override === "pin_ineligible" ? "pin_ineligible" : leastBad ? "least_bad_guardrail" : reasonCode;
    return {
      evaluation,
      selected: eligible[index]!,
      reasonCode: code,
      override,
      fallback: null,
      scoreMargin,
      probabilities,
      pinGates: extraGates,
      strategyEvidence: evidence,
    };
  }

  const fallback = resolveFallback(policy.fallback_policy, {
    now,
    defaultRetryAfterSeconds: policy.refresh_interval_seconds,
    candidates: work.map((c) => ({
      provider: c.record.provider,
      breaker: c.breaker,
      quota: c.quota,
      failedGates: c.record.gates.filter((g) => !g.passed).map((g) => g.gate),
    })),
  });
  return {
    evaluation,
    selected: null,
    reasonCode: work.length === 0 ? "no_candidates" : "no_eligible_provider",
    override,
    fallback,
    scoreMargin,
    probabilities,
    pinGates: extraGates,
  };
}
const TOP_SCORE = Symbol("top-score shares");

function topScoreShares(eligible: readonly TCandidateWork[]): TShares {
  let best = eligible[0]!;
  for (const c of eligible) if (c.record.score! > best.record.score!) best = c;
  return { [best.record.provider]: 1 };
}

function marginOf(eligible: readonly TCandidateWork[]): number | null {
  if (eligible.length < 2) return null;
  let top = -Infinity;
  let second = -Infinity;
  for (const c of eligible) {
    const s = c.record.score!;
    if (s > top) {
      second = top;
      top = s;
    } else if (s > second) second = s;
  }
  return top - second;
}

/**
 * Whether the pinned candidate passes the pin gates, and its gate outcomes: pin gates the policy
 * does not list are evaluated here and appended, in a new array (the record's may be shared with
 * other records of the same state), so the record shows why a pin was refused.
 */
function pinGates(compiled: TCompiledPolicy, c: TCandidateWork, input: TRequestContext, now: number): { passed: boolean; gates: readonly TGateOutcome[] } {
  const r = c.record;
  for (const o of r.gates) if (!o.passed && (o.gate === "not_killed" || isPinGate(o.gate))) return { passed: false, gates: r.gates };
  if (compiled.extraPinGates.length === 0) return { passed: true, gates: r.gates };
  const rule = compiled.policy.regions[input.region];
  const requested =
    input.attributes?.compliance
      ?.split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "") ?? [];
  const gateInput: TGateInput = {
    provider: c.info,
    region: input.region,
    requiredCompliance: [...new Set([...(rule?.required_compliance ?? []), ...requested])],
    regionAllowList: rule?.providers ?? null,
    breaker: c.breaker,
    quota: c.quota,
    killed: false,
    metrics: c.metrics,
    metricAgeSeconds: metricAgeSecondsAt(r.metricsAt, now),
    stale: r.stale,
    maxMetricAgeSeconds: compiled.policy.max_metric_age_seconds,
    stalePolicy: compiled.policy.stale_policy,
    now,
  };
  const extra = compiled.extraPinGates.map((g) => g.fn(gateInput));
  return { passed: extra.every((o) => o.passed), gates: [...r.gates, ...extra] };
}

const isPinGate = (g: string) => g === "supports_region" || g === "compliance_allowed" || g === "credentials_valid";
