import type { TGateOutcome } from "../gates/gate";
import type { TContribution, TStaleTreatment } from "../scoring/contributions";
import type { TBreakerView, TMetricSnapshot, TQuotaView, TShares } from "../types";
import type { TCandidateRecord, TCandidateWork } from "./record";

/**
 * The data shapes evaluate.ts produces and caches, apart from the code, so that compile.ts (which
 * holds the caches on its region plans) and evaluate.ts (which fills them) need not import each other.
 */

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

/** A routing state's metrics, breaker, quota and share per candidate, index-aligned with the plan's candidates. */
export type TCandidateLookups = {
  metricsOf: object;
  breakersOf: object;
  quotasOf: object;
  sharesOf: object | null | undefined;
  metrics: (TMetricSnapshot | undefined)[];
  breakers: (TBreakerView | undefined)[];
  quotas: (TQuotaView | undefined)[];
  shares: (number | null)[];
  /** Per candidate × score spec (candidate i's spec j at i × specs + j): raw metric and own-metric index (scoring/contributions.ts). */
  raw: (number | null)[];
  index: Float64Array;
  /**
   * Per candidate, the last gate outcomes and scoring given to a record, shared (never mutated): the next
   * decision on the same state reuses them while they come out the same (evaluate.ts), so a
   * decision does not allocate a record's explanation arrays and contribution objects again.
   */
  outcomes: (readonly TGateOutcome[] | undefined)[];
  scored: (TScored | undefined)[];
  /**
   * The last evaluation without request attributes, reused by later decisions on this state while
   * the killed-provider list is the same array and the time is from `evaluationFrom` to `evaluationUntil`
   * (evaluate.ts says when an evaluation may be kept).
   */
  evaluation: TEvaluation | null;
  evaluationKilled: readonly string[];
  evaluationFrom: number;
  evaluationUntil: number;
};

/** A candidate's contributions and score for one normalisation and stale treatment. */
export type TScored = {
  minP95: number;
  minP99: number;
  minCost: number;
  treatment: TStaleTreatment;
  contributions: readonly TContribution[];
  score: number;
};
