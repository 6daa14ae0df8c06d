// The public surface of lib/dataplane: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export { type DataPlane, startDataPlane } from "./dataplane";
export { decisionBody } from "./decide/body";
export { decisionIdAt, uuidV7At, uuidV7Time } from "./decision-id";
export {
  countDecisions,
  countDisagreementGroups,
  countServedMinutes,
  type TDisagreementGroupCount,
  type TCountQueryable,
  type TDecisionCount,
  type TDecisionCountQuery,
  type TRawDecisionCounter,
  type TRawRange,
} from "./decision-log/counts";
export { addRollupDeltas, rollupDeltasOf } from "./decision-log/rollup";
export { decisionRowOf, IDEMPOTENCY_WINDOW_MS, type TDecisionRow, type TDecisionWrite, type TExistingDecision } from "./decision-log/rows";
export { type TDecisionStoreHandle, type TOpenDecisionStore, type TStoredDecision } from "./decision-log/store";
export { type DecisionLog, DecisionLogBusyError, type TWriteOutcome } from "./decision-log/writer";
export { createHealthRoute } from "./health-route";
export { createHealthCheck } from "./health";
export { createLocalDecisionRoutes } from "./local-decisions/handler";
export { countDecision, noteRouted } from "./metrics/counters";
export { quotaWindowStart } from "./quota/cluster-quota";
export { QUOTA_UNITS, ZQuota } from "./quota/quota-schema";
export { type RoutingState, type TActivePolicy } from "./routing-state";
export { dataPlaneSettings } from "./settings";
export { createSnapshotFeed } from "./snapshot/feed";
export { bucketFromRow, type TBucketRow } from "./telemetry/metric-sync";
export { isConnectionError, outcomeRows, type TPendingOutcome, type TStoredOutcome, type TStoredOutcomeCounts, type TOutcomeStore } from "./telemetry/outcomes";
export { startTelemetry, type Telemetry, telemetryOptionsFromEnv } from "./telemetry/runtime";
export { type TExecutedCall, type TOutcomeErrorClass } from "./telemetry/schemas";
