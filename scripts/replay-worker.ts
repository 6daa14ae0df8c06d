/**
 * Worker thread of `npm run replay`: runs scenario × policy jobs sent by scripts/replay.ts and
 * posts each result back. Runs are independent and deterministic, so spreading them over threads
 * changes nothing but the wall time.
 */
import { parentPort, workerData } from "node:worker_threads";
import { runReplayJob, type TReplayJobMessage, type TReplayWorkerData } from "./replay-jobs";

const port = parentPort;
if (port === null) throw new Error("replay-worker.ts runs as a worker thread of scripts/replay.ts");
const data = workerData as TReplayWorkerData;
port.on("message", (m: TReplayJobMessage) => {
  port.postMessage({ index: m.index, result: runReplayJob(m.job, data) });
});
