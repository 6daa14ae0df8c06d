/**
 * The unit of work of `npm run replay` and how it is spread over worker threads (one per core by
 * default). Traffic depends only on the seed, so each thread generates it once and reuses it.
 */
import { Worker } from "node:worker_threads";
import type { TFactorList } from "../router-core/policy/schema";
import {
  FAILBACK_RATES,
  SENSITIVITY_VARIANTS,
  runFailbackScenario,
  runScenario,
  scenarioTraffic,
  type TPolicyId,
  type TRunResult,
  type TScenarioId,
  type TTraffic,
} from "../router-core/replay";

/**
 * One run: a Table 14 cell (variant null), a Table 15 sensitivity variant of the factor list, or
 * (failback set, an index into FAILBACK_RATES) the factor list at a lower volume for time to failback.
 */
export type TReplayJob = { scenario: TScenarioId; policy: TPolicyId; variant: number | null; failback?: number };
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
  if (job.failback !== undefined) return runFailbackScenario(job.scenario, FAILBACK_RATES[job.failback]!.requestsPerMinute, seed, factorList);
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
 * Runs every job on `threads` threads pulling from one queue (factor-list runs take several times
 * longer than baselines, so a static split would leave a core idle): this thread plus
 * `threads − 1` workers. This thread takes jobs while the workers boot (about a second each, to
 * load tsx and router-core), so a second core is a gain even for a run this short. Results come
 * back in job order; `onDone` reports progress.
 */
export async function runReplayJobs(
  jobs: readonly TReplayJob[],
  data: TReplayWorkerData,
  threads: number,
  onDone: (job: TReplayJob) => void,
): Promise<TRunResult[]> {
  const results: TRunResult[] = new Array<TRunResult>(jobs.length);
  // Longest first: factor-list runs, then the rest, so no thread ends with a long job alone.
  const order = jobs.map((_, i) => i).sort((a, b) => Number(jobs[b]!.policy === "factor_list") - Number(jobs[a]!.policy === "factor_list"));
  let next = 0;
  const worker = () =>
    new Promise<void>((resolve, reject) => {
      const w = new Worker(WORKER_BOOT, { eval: true, workerData: data });
      let pending = 0;
      const send = () => {
        if (next >= order.length) {
          if (pending === 0) void w.terminate().then(() => resolve());
          return;
        }
        const index = order[next++]!;
        pending++;
        w.postMessage({ index, job: jobs[index]! } satisfies TReplayJobMessage);
      };
      w.on("message", (m: TReplayResultMessage) => {
        pending--;
        results[m.index] = m.result;
        onDone(jobs[m.index]!);
        send();
      });
      w.on("error", reject);
      // Two jobs in flight: the reply to one may wait behind a job this thread is running, and
      // the worker should not sit idle meanwhile.
      w.on("online", () => {
        send();
        send();
      });
    });
  // One job per macrotask, so worker messages are handled between this thread's jobs.
  const local = () =>
    new Promise<void>((resolve, reject) => {
      const step = () => {
        if (next >= order.length) return resolve();
        const index = order[next++]!;
        try {
          results[index] = runReplayJob(jobs[index]!, data);
        } catch (e) {
          return reject(e instanceof Error ? e : new Error(String(e)));
        }
        onDone(jobs[index]!);
        setImmediate(step);
      };
      setImmediate(step);
    });
  const workers = Math.max(0, Math.min(threads, jobs.length) - 1);
  await Promise.all([local(), ...Array.from({ length: workers }, worker)]);
  return results;
}
