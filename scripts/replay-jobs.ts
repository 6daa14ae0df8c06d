/**
 * The unit of work of `npm run replay` and how it is spread over worker threads (one per core by
 * default). Traffic depends only on the seed, so each thread generates it once and reuses it.
 */
import { Worker } from "node:worker_threads";
import type { TFactorList } from "../router-core/policy/schema";
import {
  SENSITIVITY_VARIANTS,
  runScenario,
  scenarioTraffic,
  type TPolicyId,
  type TRunResult,
  type TScenarioId,
  type TTraffic,
} from "../router-core/replay";

/** One run: a Table 14 cell (variant null) or a Table 15 sensitivity variant of the factor list. */
export type TReplayJob = { scenario: TScenarioId; policy: TPolicyId; variant: number | null };
export type TReplayWorkerData = { seed: number; factorList: TFactorList };
export type TReplayJobMessage = { index: number; job: TReplayJob };
type TReplayResultMessage = { index: number; result: TRunResult };

/**
 * A worker thread does not inherit tsx's loader, so it boots through tsx's API to import the
 * TypeScript worker (execArgv ["--import", "tsx"] is not honoured for workers on Node 20).
 */
const WORKER_BOOT = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((tsx) => tsx.tsImport(${JSON.stringify(new URL("./replay-worker.ts", import.meta.url).href)}, ${JSON.stringify(import.meta.url)}));`;

const trafficBySeed = new Map<number, TTraffic>();

export function runReplayJob(job: TReplayJob, { seed, factorList }: TReplayWorkerData): TRunResult {
  let traffic = trafficBySeed.get(seed);
  if (traffic === undefined) {
    traffic = scenarioTraffic(seed);
    trafficBySeed.set(seed, traffic);
  }
  const v = job.variant === null ? null : SENSITIVITY_VARIANTS[job.variant]!;
  return runScenario({
    scenario: job.scenario,
    policy: job.policy,
    seed,
    traffic,
    factorList: v === null ? factorList : v.factorList(factorList),
    wiring: v?.wiring,
  });
}

/**
 * Runs every job, in `threads` worker threads pulling from one queue (factor-list runs take
 * several times longer than baselines, so a static split would leave a core idle); with one
 * thread, in this thread. Results come back in job order; `onDone` reports progress.
 */
export async function runReplayJobs(
  jobs: readonly TReplayJob[],
  data: TReplayWorkerData,
  threads: number,
  onDone: (job: TReplayJob) => void,
): Promise<TRunResult[]> {
  const results: TRunResult[] = new Array<TRunResult>(jobs.length);
  if (threads <= 1) {
    jobs.forEach((job, i) => {
      results[i] = runReplayJob(job, data);
      onDone(job);
    });
    return results;
  }
  // Longest first: factor-list runs, then the rest, so no thread ends with a long job alone.
  const order = jobs.map((_, i) => i).sort((a, b) => Number(jobs[b]!.policy === "factor_list") - Number(jobs[a]!.policy === "factor_list"));
  let next = 0;
  const worker = () =>
    new Promise<void>((resolve, reject) => {
      const w = new Worker(WORKER_BOOT, { eval: true, workerData: data });
      const send = () => {
        if (next >= order.length) {
          void w.terminate().then(() => resolve());
          return;
        }
        const index = order[next++]!;
        w.postMessage({ index, job: jobs[index]! } satisfies TReplayJobMessage);
      };
      w.on("message", (m: TReplayResultMessage) => {
        results[m.index] = m.result;
        onDone(jobs[m.index]!);
        send();
      });
      w.on("error", reject);
      w.on("online", send);
    });
  await Promise.all(Array.from({ length: Math.min(threads, jobs.length) }, worker));
  return results;
}
