import type { Clock } from "../clock";
import { resolveFallback, type TFallbackDecision } from "../control/fallback";
import type { TGateInput } from "../gates/gate";
import type { TFactorList } from "../policy/schema";
import type { Random } from "../random";
import type { TRequestContext, TRouterState, TShares } from "../types";
import { compilePolicy, type TCompiledPolicy } from "./compile";
import { evaluateCandidates } from "./evaluate";
import type { TReasonCode } from "./reason-codes";
import type { TCandidateWork, TDecisionRecord, TOverrideApplied, TShadowResult } from "./record";

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
  work: TCandidateWork[];
  selected: TCandidateWork | null;
  reasonCode: TReasonCode;
  override: TOverrideApplied;
  fallback: TFallbackDecision | null;
  scoreMargin: number | null;
};

/**
 * One routing decision (DESIGN.md "A decision, in order"): overrides, hard gates, soft
 * guardrails, selection by the strategy, fallback when nothing is eligible, and the full record.
 * Pure: the same inputs, clock reading and random stream give the same record. Exactly one
 * random draw is taken per call, shadow or not, so a shadow policy never perturbs the active
 * stream; the shadow reuses the same draw (common random numbers make agreement meaningful).
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
  const candidates = new Array(active.work.length);
  for (let i = 0; i < active.work.length; i++) candidates[i] = active.work[i]!.record;
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
    metricAgeSeconds: selected?.record.metricAgeSeconds ?? null,
    stale: selected?.record.stale ?? false,
    fallback: active.fallback,
    shadow,
  };
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
  const { work, eligible, leastBad } = evaluateCandidates(compiled, state, input, now);
  const scoreMargin = marginOf(eligible);
  const overrides = state.overrides;

  let override: TOverrideApplied = "none";
  const pin = overrides?.pin;
  if (pin) {
    if (pin.expiresAt <= now) override = "pin_expired";
    else {
      const pinned = work.find((c) => c.record.provider === pin.provider);
      if (pinned && passesPinGates(compiled, pinned, input, now)) {
        pinned.record.selectionProbability = 1;
        return { work, selected: pinned, reasonCode: "pinned", override: "pinned", fallback: null, scoreMargin };
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
        c.record.selectionProbability = 1;
        const reasonCode = override === "pin_ineligible" ? "pin_ineligible" : "routing_killed_static_order";
        return { work, selected: c, reasonCode, override: override === "none" ? "routing_killed" : override, fallback: null, scoreMargin };
      }
    }
  } else if (eligible.length > 0) {
    const { index, reasonCode } = compiled.strategy.select({
      eligible,
      shares: shares === TOP_SCORE ? topScoreShares(eligible) : shares,
      u,
      sequence: input.sequence,
      p99BaselineMs: policy.p99_baseline_ms,
    });
    const code: TReasonCode = override === "pin_ineligible" ? "pin_ineligible" : leastBad ? "least_bad_guardrail" : reasonCode;
    return { work, selected: eligible[index]!, reasonCode: code, override, fallback: null, scoreMargin };
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
    work,
    selected: null,
    reasonCode: work.length === 0 ? "no_candidates" : "no_eligible_provider",
    override,
    fallback,
    scoreMargin,
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

/** Pin gates the policy does not list are evaluated here and appended to the candidate's record. */
function passesPinGates(compiled: TCompiledPolicy, c: TCandidateWork, input: TRequestContext, now: number): boolean {
  const r = c.record;
  for (const o of r.gates) if (!o.passed && (o.gate === "not_killed" || isPinGate(o.gate))) return false;
  if (compiled.extraPinGates.length === 0) return true;
  const rule = compiled.policy.regions[input.region];
  const requested = input.attributes?.compliance?.split(",").map((s) => s.trim()).filter((s) => s !== "") ?? [];
  const gateInput: TGateInput = {
    provider: c.info,
    region: input.region,
    requiredCompliance: [...new Set([...(rule?.required_compliance ?? []), ...requested])],
    regionAllowList: rule?.providers ?? null,
    breaker: c.breaker,
    quota: c.quota,
    killed: false,
    metrics: c.metrics,
    metricAgeSeconds: r.metricAgeSeconds,
    stale: r.stale,
    maxMetricAgeSeconds: compiled.policy.max_metric_age_seconds,
    stalePolicy: compiled.policy.stale_policy,
    now,
  };
  let ok = true;
  const extra = compiled.extraPinGates.map((g) => g.fn(gateInput));
  for (const o of extra) if (!o.passed) ok = false;
  // A new array: the record's gate outcomes may be shared with other records of the same state.
  r.gates = [...r.gates, ...extra];
  return ok;
}

const isPinGate = (g: string) => g === "supports_region" || g === "compliance_allowed" || g === "credentials_valid";
