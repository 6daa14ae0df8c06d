/**
 * Worker thread of the console's replays (replay-runner.ts): runs one evaluation or what-if and
 * posts progress and the result, so the server's event loop never runs a replay itself.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { TFactorList } from "../../router-core/policy/schema";
import { runEvaluation, type TEvaluationProgress, type TEvaluationResult } from "./evaluation";
import { runWhatIf, type TRecordedTraffic, type TWhatIfOptions, type TWhatIfReport } from "./what-if";

export type TReplayTask =
  | { kind: "evaluation"; factorList: TFactorList; seed: number }
  | { kind: "what-if"; factorList: TFactorList; recorded: TRecordedTraffic; seed: number; active?: TWhatIfOptions["active"] };
export type TReplayOutput = { kind: "evaluation"; result: TEvaluationResult } | { kind: "what-if"; result: TWhatIfReport };
export type TReplayWorkerMessage =
  { kind: "progress"; progress: TEvaluationProgress } | { kind: "done"; output: TReplayOutput } | { kind: "failed"; message: string };

function run(task: TReplayTask, progress: (p: TEvaluationProgress) => void): TReplayOutput {
  if (task.kind === "evaluation") return { kind: "evaluation", result: runEvaluation(task.factorList, task.seed, progress) };
  progress({ done: 0, total: 1, label: "replaying recorded traffic" });
  return { kind: "what-if", result: runWhatIf(task.recorded, task.factorList, { seed: task.seed, active: task.active }) };
}

const port = parentPort;
if (port === null) throw new Error("evaluation-worker.ts runs as a worker thread of lib/replay/replay-runner.ts");
try {
  const output = run(workerData as TReplayTask, (progress) => port.postMessage({ kind: "progress", progress } satisfies TReplayWorkerMessage));
  port.postMessage({ kind: "done", output } satisfies TReplayWorkerMessage);
} catch (e) {
  port.postMessage({ kind: "failed", message: e instanceof Error ? e.message : String(e) } satisfies TReplayWorkerMessage);
}
