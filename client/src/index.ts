export { SwitchyardClient, type TSwitchyardClientOptions } from "./client.js";
export { SwitchyardError, SwitchyardUnavailableError, type TUnavailableReason } from "./errors.js";
export { parseRetryAfter, retryDelay, type TRetryInfo } from "./http.js";
export type * from "./types.js";
export { LocalRouter, type TLocalEngine, type TLocalRouterOptions } from "./local.js";
export type { TDecisionReport, TSnapshotAnswer, TSnapshotDeltaAnswer } from "./client.js";
export { applySnapshotDelta, type TSnapshotDelta } from "./snapshot-delta.js";
