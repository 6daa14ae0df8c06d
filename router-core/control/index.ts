export type {
  TCircuitBreaker,
  TBreakerConfig,
  TCircuitBreakerState,
  TBreakerEvent,
  TBreakerTransition,
  TBreakerTransitionReason,
  TBreakerBucket,
} from "./circuit-breaker";
export {
  BREAKER_HISTORY_LIMIT,
  BREAKER_TRANSITION_REASONS,
  DEFAULT_CIRCUIT_BREAKER_CONFIG,
  breakerKey,
  breakerView,
  createCircuitBreaker,
  resolveCircuitBreakerConfig,
  restoreBreakerState,
} from "./circuit-breaker";
export { mergeBreakerState, withClusterProbeSuccesses, withProbeSlots } from "./breaker-merge";
export type { TBreakerCorrelationConfig, TCorrelation, TProviderFailureRun } from "./breaker-correlation";
export {
  DEFAULT_BREAKER_CORRELATION,
  correlateRegionalBreakers,
  extendFailureRun,
  findCorrelation,
  NO_FAILURE_RUN,
  releaseHeldBreakers,
  resolveBreakerCorrelation,
} from "./breaker-correlation";
export type { TQuotaConfig, TQuotaPhase, TQuotaRamp, TQuotaState, TQuotaWindow } from "./quota-tracker";
export {
  DEFAULT_QUOTA_CONFIG,
  QUOTA_PHASES,
  consumeQuota,
  createQuotaState,
  observeThrottle,
  preallocateQuota,
  quotaRamp,
  quotaView,
  reconfigureQuota,
  resolveQuotaConfig,
  restoreQuotaState,
} from "./quota-tracker";
export type {
  TControllerCandidate,
  TControllerConfig,
  TControllerEvent,
  TControllerEventType,
  TControllerEvidence,
  TControllerInput,
  TControllerResult,
  TControllerSafety,
  TControllerState,
  TRecovery,
} from "./controller";
export { CONTROLLER_EVENT_TYPES, createControllerState, resolveControllerConfig, restoreControllerState, stepController } from "./controller";
export type { TFallbackCandidate, TFallbackContext, TFallbackDecision } from "./fallback";
export { isFallbackPolicy, resolveFallback } from "./fallback";
export type { TRoutingDefaults } from "./routing-defaults";
export type { TRegainGap } from "./controller-types";
export { regainGaps } from "./regain-margin";
export { ROUTING_DEFAULTS, controllerConfigFor } from "./routing-defaults";
