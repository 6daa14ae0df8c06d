// The public surface of lib/replay: other lib areas import from here, never a file inside it
// (eslint.config.mjs, switchyard/lib-layers). It holds what other areas use; export more when one needs it.
export { EVALUATION_RUNS, type TEvaluationResult, traceKey } from "./evaluation";
export { loadRecordedTraffic } from "./load-recorded";
export { fingerprintOf, getReplay, ReplayBusyError, startReplay, type TReplayJob } from "./replay-runner";
export { type TWhatIfReport } from "./what-if";
