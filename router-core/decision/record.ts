import type { TFallbackDecision } from "../control/fallback";
import type { TGateOutcome } from "../gates/gate";
import type { TStrategyName } from "../policy/names";
import type { TContribution, TStaleTreatment } from "../scoring/contributions";
import type { TGuardrailCheck } from "../scoring/guardrails";
import type { TBreakerView, TMetricSnapshot, TProviderInfo, TQuotaView } from "../types";
import type { TReasonCode } from "./reason-codes";

/**
 * One candidate's part of the explanation. Immutable: decisions on the same routing state share
 * the record objects of candidates whose fields all come out the same (evaluate.ts, decide.ts),
 * so nothing may write to one; a variant is a new object.
 */
export type TCandidateRecord = Readonly<{
  provider: string;
  /** Position in the static priority order, 0 = primary. */
  priority: number;
  /** Shared (never mutate): records of one routing state reuse the same array while the outcomes are the same. */
  gates: readonly TGateOutcome[];
  passedGates: boolean;
  /** Null when a hard gate failed: guardrails are only checked for candidates passing the gates. */
  guardrail: TGuardrailCheck | null;
  /** Passed the gates and either the guardrails or the least-bad rule. */
  eligible: boolean;
  /** Shared (never mutate): records of one routing state reuse the same array while the inputs are the same. */
  contributions: readonly TContribution[];
  /** Sum of contributions; null when a hard gate failed (gated candidates are not scored). */
  score: number | null;
  /** The controller's share for this provider, as given. */
  share: number | null;
  /** Probability this decision gave the provider (shares or strategy weights, renormalised). */
  selectionProbability: number;
  /**
   * Time of the newest data in the candidate's metrics (epoch ms; TMetricSnapshot.updatedAt), null
   * when there is none. Its metric age at this decision is (record.at − metricsAt) / 1000 s; the
   * record carries the time rather than the age so that it stays the same from one decision to the next.
   */
  metricsAt: number | null;
  stale: boolean;
  sampleCount: number;
  metricScope: TMetricSnapshot["scope"];
}>;

/** Seconds from `metricsAt` (TCandidateRecord.metricsAt) to `at`; null without metrics. */
export function metricAgeSecondsAt(metricsAt: number | null, at: number): number | null {
  return metricsAt === null ? null : (at - metricsAt) / 1000;
}

export type TOverrideApplied = "none" | "pinned" | "pin_ineligible" | "pin_expired" | "routing_killed";

export type TShadowResult = {
  policyVersion: string | null;
  selected: string | null;
  reasonCode: TReasonCode;
  /** Whether the shadow policy picked the same provider as the active one. */
  agrees: boolean;
  scoreMargin: number | null;
};

/**
 * Why a price strategy weighted the eligible providers as it did (the token-gateway article (docs/references.md) algorithms 1 and 2):
 * Weight = BasePrice / Price, times for price_latency_penalty clamp(1 − (p99 − baseline) /
 * baseline, floor, 1). The probability each got is the candidate record's selectionProbability.
 */
export type TPriceEvidence = Readonly<{
  strategy: "price_weighted" | "price_latency_penalty";
  /** The cheapest eligible price. */
  basePrice: number;
  /** price_latency_penalty: the p99 the penalty is measured against, null when no eligible provider has a p99 yet. */
  p99BaselineMs: number | null;
  p99BaselineFrom: "factor_list" | "lowest_eligible_p99" | null;
  penaltyFloor: number | null;
  /** One per eligible candidate, in their order. */
  rows: readonly Readonly<{ provider: string; price: number; p99Ms: number | null; penalty: number | null; weight: number }>[];
}>;

export type TDecisionRecord = {
  id: string;
  at: number;
  operation: string;
  region: string;
  requestId: string;
  policyVersion: string | null;
  strategy: TStrategyName;
  selected: string | null;
  reasonCode: TReasonCode;
  override: TOverrideApplied;
  /** Shared between decisions while it comes out the same: never mutate; replace it with a new array. */
  candidates: readonly TCandidateRecord[];
  /** Top eligible score minus the runner-up's; null with fewer than two eligible. */
  scoreMargin: number | null;
  /** Of the selected provider: (at − its metricsAt) / 1000; null when none was selected or it has no metrics. */
  metricAgeSeconds: number | null;
  stale: boolean;
  fallback: TFallbackDecision | null;
  shadow: TShadowResult | null;
  /** When a price strategy chose (not for pins, kills or fallbacks); undefined, so absent from the JSON, otherwise. */
  strategyEvidence: TPriceEvidence | undefined;
};

/** Internal per-candidate working data that is not part of the record. */
export type TCandidateWork = {
  /** Position in the evaluated candidate list (= record.priority). */
  index: number;
  /** With selectionProbability 0; the decision's record gets the strategy's probability (decide.ts). */
  record: TCandidateRecord;
  info: TProviderInfo;
  metrics: TMetricSnapshot | undefined;
  breaker: TBreakerView | undefined;
  quota: TQuotaView | undefined;
  treatment: TStaleTreatment;
};
