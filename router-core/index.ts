export type { Clock, SimulatedClock } from "./clock";
export { createSimulatedClock, createClock } from "./clock";
export type { Random } from "./random";
export { createSeededRandom } from "./random";
export type {
  TBreakerState,
  TBreakerView,
  TQuotaView,
  TShares,
  TCredentialStatus,
  TProviderInfo,
  TMetricSnapshot,
  TPin,
  TOverrides,
  TRequestContext,
  TRouterState,
} from "./types";
export {
  GATE_NAMES,
  SCORE_DIRECTIONS,
  SCORE_NAMES,
  STRATEGY_NAMES,
  FALLBACK_ACTIONS,
  FALLBACK_POLICIES,
  FALLBACK_POLICY_NAMES,
  STALE_POLICIES,
} from "./policy/names";
export type {
  TGateName,
  TScoreDirection,
  TScoreName,
  TStrategyName,
  TFallbackAction,
  TFallbackPolicyName,
  TStalePolicy,
} from "./policy/names";
export { ZFactorList, ZScore, ZScores, ZGuardrails, ZSafety, ZCircuitBreaker, ZRegionRule } from "./policy/schema";
export type {
  TFactorList,
  TFactorListInput,
  TScore,
  TGuardrails,
  TSafety,
  TCircuitBreakerConfig,
  TRegionRule,
} from "./policy/schema";
export { parseFactorList, factorListToYaml, factorListToJson } from "./policy/codec";
export type { TPolicyError, TParseResult } from "./policy/codec";
export { diffFactorLists } from "./policy/diff";
export type { TPolicyChange, TPolicyDiff } from "./policy/diff";
