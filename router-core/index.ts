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
export type { TGateName, TScoreDirection, TScoreName, TStrategyName, TFallbackAction, TFallbackPolicyName, TStalePolicy } from "./policy/names";
export { ZFactorList, ZScore, ZScores, ZGuardrails, ZSafety, ZCircuitBreaker, ZRegionRule } from "./policy/schema";
export type { TFactorList, TFactorListInput, TScore, TGuardrails, TSafety, TCircuitBreakerConfig, TRegionRule } from "./policy/schema";
export { parseFactorList, factorListToYaml, factorListToJson, factorListInFieldOrder, decodeYamlText, locateYamlPath } from "./policy/codec";
export type { TPolicyError, TParseResult, TLocated } from "./policy/codec";
export { checkPolicyTextBounds, MAX_POLICY_TEXT_CHARS, MAX_POLICY_NESTING, MAX_POLICY_FLOW_OPENERS } from "./policy/text-bounds";
export { diffFactorLists } from "./policy/diff";
export { complianceWeakenings, type TComplianceWeakening } from "./policy/compliance-weakening";
export { withCatalogRequirements } from "./policy/catalog-requirements";
export type { TRegionRequirements } from "./policy/catalog-requirements";
export type { TPolicyChange, TPolicyDiff } from "./policy/diff";
export { GATES, ALWAYS_ON_GATES, PIN_GATES } from "./gates/registry";
export { contextWindowFits } from "./gates/context-window-fits";
export { quotaOutcome } from "./gates/quota-available";
export type { TGateOutcome, TGateInput, TGateFn } from "./gates/gate";
export {
  HISTOGRAM_BUCKETS,
  HISTOGRAM_GROWTH,
  createHistogram,
  recordLatency,
  mergeHistogramInto,
  histogramQuantile,
  histogramCount,
  histogramBucketIndex,
  histogramUpperBound,
} from "./metrics/histogram";
export type { TLatencyHistogram } from "./metrics/histogram";
export {
  FAILURE_STAGES,
  createBucket,
  recordProviderCall,
  recordBusinessOutcome,
  recordIncident,
  mergeBucketInto,
  restoreBucket,
  bucketKey,
  bucketStart,
} from "./metrics/bucket";
export type { TFailureStage, TMetricBucket, TProviderCallEvent, TBusinessOutcomeEvent } from "./metrics/bucket";
export { confidenceFromSamples, REGION_FALLBACK_CONFIDENCE } from "./metrics/confidence";
export { summarizeBuckets, snapshotFor, inWindow } from "./metrics/window";
export type { TWindowOptions } from "./metrics/window";
export { createMetricStore, restoreMetricStore } from "./metrics/store";
export type { MetricStore, TMetricKey, TMetricStoreOptions, TMetricStoreJSON } from "./metrics/store";
export { INDEX_SPECS, SAFE_DEFAULT_INDEX } from "./scoring/indices";
export type { TIndexSpec, TNormalization } from "./scoring/indices";
export type { TContribution } from "./scoring/contributions";
export { checkGuardrails } from "./scoring/guardrails";
export type { TGuardrailCheck } from "./scoring/guardrails";
export { STRATEGIES } from "./strategies/registry";
export type { RoutingStrategy, TStrategyInput, TStrategySelection } from "./strategies/strategy";
export { priceWeights } from "./strategies/price-weighted";
export { latencyPenalty } from "./strategies/price-latency-penalty";
export { REASON_CODES } from "./decision/reason-codes";
export type { TReasonCode } from "./decision/reason-codes";
export type { TCandidateRecord, TDecisionRecord, TPriceEvidence, TShadowResult, TOverrideApplied } from "./decision/record";
export { metricAgeSecondsAt } from "./decision/record";
export { decide } from "./decision/decide";
export type { TDecideOptions, TShadowPolicy } from "./decision/decide";
export { controllerEvidence, scoreCandidates } from "./decision/score-candidates";
export type { TScoredProvider } from "./decision/score-candidates";
export { compilePolicy } from "./decision/compile";

// control/: circuit breaker, quota tracker, traffic-share controller, fallback policies
export type {
  TCircuitBreaker,
  TBreakerConfig,
  TCircuitBreakerState,
  TBreakerEvent,
  TBreakerTransition,
  TBreakerTransitionReason,
  TBreakerBucket,
} from "./control";
export {
  BREAKER_HISTORY_LIMIT,
  BREAKER_TRANSITION_REASONS,
  DEFAULT_CIRCUIT_BREAKER_CONFIG,
  breakerKey,
  breakerView,
  createCircuitBreaker,
  resolveCircuitBreakerConfig,
  restoreBreakerState,
} from "./control";
export { mergeBreakerState, withClusterProbeSuccesses, withProbeSlots } from "./control";
export type { TBreakerCorrelationConfig, TProviderFailureRun } from "./control";
export {
  DEFAULT_BREAKER_CORRELATION,
  correlateRegionalBreakers,
  extendFailureRun,
  NO_FAILURE_RUN,
  releaseHeldBreakers,
  resolveBreakerCorrelation,
} from "./control";
export type { TQuotaConfig, TQuotaPhase, TQuotaRamp, TQuotaState, TQuotaWindow } from "./control";
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
} from "./control";
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
} from "./control";
export { CONTROLLER_EVENT_TYPES, createControllerState, resolveControllerConfig, restoreControllerState, stepController } from "./control";
export type { TRoutingDefaults, TRegainGap } from "./control";
export { regainGaps } from "./control";
export { ROUTING_DEFAULTS, controllerConfigFor } from "./control";
export type { TFallbackCandidate, TFallbackContext, TFallbackDecision } from "./control";
export { isFallbackPolicy, resolveFallback } from "./control";

// replay/: the paper's section 8 (docs/references.md) evaluation (scenarios, baseline policies, factor-list policy, metrics)
export {
  BASELINE_FAILURE_P,
  BASELINE_P95_MS,
  COST_PER_REQUEST,
  CSV_HEADER,
  DEFAULT_ROUTER_WIRING,
  DEGRADED_SHARE_THRESHOLD,
  LISTING_1_YAML,
  OSCILLATION_WINDOW_MINUTES,
  PAPER_TABLE_14,
  POLICY_IDS,
  POLICY_LABELS,
  REPLAY_PROVIDERS,
  REPLAY_REGIONS,
  REPLAY_TRAFFIC,
  SCENARIOS,
  SCENARIO_IDS,
  SENSITIVITY_VARIANTS,
  SHIFT_AWAY_SHARE,
  SLOT_SECONDS,
  TIMEOUT_MS,
  countOscillations,
  countSwitches,
  createCircuitBreakerPolicy,
  createConventionalFailoverPolicy,
  createFactorListPolicy,
  createPolicy,
  createProviderRuntime,
  createStaticPrimaryPolicy,
  degradedMinutes,
  formatDetails,
  formatTable14,
  formatTable15,
  generateTraffic,
  latencyTradeoffNote,
  listing1,
  meetsTarget,
  mergedP95,
  minuteLeaders,
  resultCsv,
  runReplay,
  runScenario,
  scenarioTraffic,
  sensitivityCsv,
  sensitivityRows,
  shiftAwayMinutes,
  simulateCall,
  staleTelemetryNote,
  successRate,
  traceCsv,
  trafficFromCounts,
  trafficHash,
} from "./replay";
export type {
  ProviderModel,
  ReplayPolicy,
  TCallResult,
  TCondition,
  TFactorListPolicy,
  TPolicyId,
  TProviderMinute,
  TProviderRuntime,
  TResultCell,
  TRouterWiring,
  TRunMetrics,
  TRunResult,
  TRunSetup,
  TRunSpec,
  TScenario,
  TScenarioId,
  TSensitivityRow,
  TSensitivityVariant,
  TTraceMinute,
  TTraffic,
  TTrafficSpec,
} from "./replay";
