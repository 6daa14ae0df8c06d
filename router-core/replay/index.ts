export { generateTraffic, trafficFromCounts, trafficHash } from "./traffic";
export type { TTraffic, TTrafficSpec } from "./traffic";
export { TIMEOUT_MS, createProviderRuntime, simulateCall } from "./model";
export type { ProviderModel, TCondition, TCallResult, TProviderRuntime } from "./model";
export {
  BASELINE_FAILURE_P,
  BASELINE_P95_MS,
  COST_PER_REQUEST,
  PROVIDERS as REPLAY_PROVIDERS,
  REGIONS as REPLAY_REGIONS,
  SCENARIOS,
  SCENARIO_IDS,
  TRAFFIC as REPLAY_TRAFFIC,
} from "./scenarios";
export type { TScenario, TScenarioId } from "./scenarios";
export {
  DEGRADED_SHARE_THRESHOLD,
  OSCILLATION_WINDOW_MINUTES,
  SHIFT_AWAY_SHARE,
  countOscillations,
  countSwitches,
  degradedMinutes,
  minuteLeaders,
  shiftAwayMinutes,
  successRate,
} from "./metrics";
export { SLOT_SECONDS, mergedP95, runReplay } from "./engine";
export type { ReplayPolicy, TProviderMinute, TRunMetrics, TRunResult, TRunSetup, TTraceMinute } from "./engine";
export { createCircuitBreakerPolicy, createConventionalFailoverPolicy, createStaticPrimaryPolicy } from "./baselines";
export { DEFAULT_ROUTER_WIRING, createFactorListPolicy } from "./factor-list-policy";
export type { TFactorListPolicy, TRouterWiring } from "./factor-list-policy";
export { LISTING_1_YAML, PAPER_TABLE_14, POLICY_IDS, POLICY_LABELS, createPolicy, listing1, runScenario, scenarioTraffic } from "./suite";
export type { TPolicyId, TRunSpec } from "./suite";
export { SENSITIVITY_VARIANTS, sensitivityRows } from "./sensitivity";
export type { TSensitivityRow, TSensitivityVariant } from "./sensitivity";
export {
  CSV_HEADER,
  formatDetails,
  formatTable14,
  formatTable15,
  latencyTradeoffNote,
  meetsTarget,
  resultCsv,
  sensitivityCsv,
  staleTelemetryNote,
  traceCsv,
} from "./report";
export type { TResultCell } from "./report";
export { complianceBreaches } from "./compliance-exposure";
export { FAILBACK_MINUTES, FAILBACK_RATES, FAILBACK_SHARE, failbackRow, formatFailbackTable, runFailbackScenario } from "./failback";
export type { TFailbackRegion, TFailbackRow } from "./failback";
export type { TComplianceBreach } from "./compliance-exposure";
