import { createHash, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { TEvaluationProgress } from "./evaluation";
import type { TReplayOutput, TReplayTask, TReplayWorkerMessage } from "./replay-worker";
import { processSlot } from "../runtime";

/**
 * Runs the console's replays (evaluations, what-ifs) off the request thread: one worker thread at
 * a time (a full evaluation keeps a core busy for seconds; this machine class has two), a short
 * queue behind it, the latest and the last successful job per key kept in memory. Replays are
 * deterministic, so a request whose inputs match the latest job's fingerprint gets that job
 * instead of a new run. State lives in a process slot (lib/runtime/process-slots.ts): Next bundles its own copy of this module per
 * route.
 */

export type TReplayState = "queued" | "running" | "done" | "failed";

export type TReplayJob = {
  id: string;
  /** What the result is cached under, e.g. "evaluation:<version id>". */
  key: string;
  fingerprint: string;
  kind: TReplayTask["kind"];
  state: TReplayState;
  progress: TEvaluationProgress;
  requestedBy: string;
  queuedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  error: string | null;
  output: TReplayOutput | null;
};

export class ReplayBusyError extends Error {
  constructor(readonly queued: number) {
    super(`${queued} replays are already waiting; try again when one has finished`);
    this.name = "ReplayBusyError";
  }
}

export const MAX_QUEUED = 4;
/** A full evaluation takes seconds; anything past this is a stuck worker, not a slow one. */
const JOB_TIMEOUT_MS = 180_000;

type TRunnerState = {
  latest: Map<string, TReplayJob>;
  lastDone: Map<string, TReplayJob>;
  queue: { job: TReplayJob; task: TReplayTask }[];
  running: TReplayJob | null;
  workerFile: string;
};

const state = processSlot<TRunnerState>("replays", () => ({
  latest: new Map(),
  lastDone: new Map(),
  queue: [],
  running: null,
  workerFile: path.resolve(process.cwd(), "lib/replay/replay-worker.ts"),
}));

export function fingerprintOf(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16);
}

/** The latest job for a key, its last successful one (the same job when the latest succeeded) and its place in the queue. */
export function getReplay(key: string): { latest: TReplayJob | null; lastDone: TReplayJob | null; queuePosition: number | null } {
  const latest = state.latest.get(key) ?? null;
  const i = state.queue.findIndex((q) => q.job === latest);
  return { latest, lastDone: state.lastDone.get(key) ?? null, queuePosition: i >= 0 ? i + 1 : null };
}

/**
 * Queues `task` under `key`. Returns the job that answers it: the latest job for the key when its
 * fingerprint matches (queued, running or done), else a new one (which replaces a still-queued
 * job for the key). Throws ReplayBusyError when MAX_QUEUED jobs are already waiting.
 */
export function startReplay(key: string, fingerprint: string, task: TReplayTask, requestedBy: string, total: number): { job: TReplayJob; started: boolean } {
  const latest = state.latest.get(key);
  if (latest && latest.fingerprint === fingerprint && latest.state !== "failed") return { job: latest, started: false };
  const stale = state.queue.findIndex((q) => q.job === latest);
  if (stale < 0 && state.queue.length >= MAX_QUEUED) throw new ReplayBusyError(state.queue.length);
  if (stale >= 0) state.queue.splice(stale, 1);
  const job: TReplayJob = {
    id: randomUUID(),
    key,
    fingerprint,
    kind: task.kind,
    state: "queued",
    progress: { done: 0, total, label: "waiting for the worker" },
    requestedBy,
    queuedAt: Date.now(),
    startedAt: null,
    finishedAt: null,
    error: null,
    output: null,
  };
  state.latest.set(key, job);
  state.queue.push({ job, task });
  pump();
  return { job, started: true };
}

function pump(): void {
  if (state.running !== null) return;
  const next = state.queue.shift();
  if (!next) return;
  const { job, task } = next;
  state.running = job;
  job.state = "running";
  job.startedAt = Date.now();
  job.progress = { ...job.progress, label: "starting the worker thread" };
  void runOnWorker(job, task).finally(() => {
    state.running = null;
    pump();
  });
}

/**
 * A worker thread does not inherit tsx's loader (the server runs under tsx), so it boots through
 * tsx's API to import the TypeScript worker. Paths come from the repository root (the working
 * directory, where an eval worker also resolves "tsx"), since Next bundles this file and its own
 * location says nothing about the sources'.
 */
function bootCode(workerFile: string): string {
  const url = JSON.stringify(pathToFileURL(workerFile).href);
  return `import("tsx/esm/api").then((tsx) => tsx.tsImport(${url}, ${url})).catch((e) => require("node:worker_threads").parentPort.postMessage({ kind: "failed", message: "the replay worker did not start: " + (e && e.message ? e.message : String(e)) }));`;
}

function runOnWorker(job: TReplayJob, task: TReplayTask): Promise<void> {
  return new Promise<void>((resolve) => {
    let worker: Worker | null = null;
    const finish = (outcome: { output: TReplayOutput } | { error: string }) => {
      if (job.state !== "running") return;
      job.finishedAt = Date.now();
      if ("output" in outcome) {
        job.state = "done";
        job.output = outcome.output;
        job.progress = { done: job.progress.total, total: job.progress.total, label: "done" };
        state.lastDone.set(job.key, job);
      } else {
        job.state = "failed";
        job.error = outcome.error;
      }
      clearTimeout(timer);
      void worker?.terminate();
      resolve();
    };
    const timer = setTimeout(() => finish({ error: `the replay did not finish within ${JOB_TIMEOUT_MS / 1000} s` }), JOB_TIMEOUT_MS);
    timer.unref();
    if (!existsSync(state.workerFile))
      return finish({ error: `the replay worker ${state.workerFile} is missing (the server must run from the repository root)` });
    try {
      worker = new Worker(bootCode(state.workerFile), { eval: true, workerData: task });
    } catch (e) {
      return finish({ error: `could not start the replay worker: ${e instanceof Error ? e.message : String(e)}` });
    }
    // The worker must not keep a test run or a stopping server alive.
    worker.unref();
    worker.on("message", (m: TReplayWorkerMessage) => {
      if (m.kind === "progress") job.progress = m.progress;
      else if (m.kind === "done") finish({ output: m.output });
      else finish({ error: m.message });
    });
    worker.on("error", (e) => finish({ error: `the replay worker crashed: ${e.message}` }));
    worker.on("exit", (code) => finish({ error: `the replay worker exited with code ${code} before answering` }));
  });
}
