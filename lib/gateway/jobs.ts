import { errorBody } from "../http";
import { randomUUID } from "node:crypto";
import type { TAnswer } from "./answer";

/**
 * the token-gateway article's "degrade to queue" in one instance's memory: a request no provider can take now
 * waits here, in arrival order, and is executed again when the fallback's retry-after passes.
 * The gateway queues in Postgres (durable-jobs.ts); this queue holds jobs only while Postgres is
 * unreachable, and hands them over (takeQueued) once it is back.
 */
/** `jobId` is the same on every run of a job, on any instance: the provider idempotency key comes from it. */
export type TJobRun = (payload: unknown, jobId: string) => Promise<{ answer: TAnswer; retryAfterSeconds: number | null }>;

/** A job waiting to run, as it moves from memory into the shared queue. */
export type TQueuedJob = { id: string; operation: string; owner: string; payload: unknown; notBefore: number; createdAt: number };

type TJob = {
  id: string;
  operation: string;
  owner: string;
  payload: unknown;
  notBefore: number;
  createdAt: number;
  answer: TAnswer | null;
  finishedAt: number | null;
};

export type TJobView = { status: "queued"; position: number; retryAfterSeconds: number } | { status: "running" } | { status: "done"; answer: TAnswer };

export function createJobQueue(opts: {
  run: TJobRun;
  now: () => number;
  maxQueued?: number;
  maxWaitMs?: number;
  keepMs?: number;
  log: (line: string) => void;
}) {
  const maxQueued = opts.maxQueued ?? 10_000;
  const maxWaitMs = opts.maxWaitMs ?? 15 * 60_000;
  const keepMs = opts.keepMs ?? 5 * 60_000;
  const queue: TJob[] = [];
  const byId = new Map<string, TJob>();
  let running: TJob | null = null;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  function schedule(): void {
    if (closed || running || timer || queue.length === 0) return;
    const wait = Math.max(0, queue[0]!.notBefore - opts.now());
    timer = setTimeout(() => {
      timer = null;
      void next();
    }, wait);
    timer.unref();
  }

  async function next(): Promise<void> {
    const job = queue[0];
    if (!job || running || closed) return;
    if (job.notBefore > opts.now()) return schedule();
    queue.shift();
    running = job;
    try {
      const r = await opts.run(job.payload, job.id);
      if (r.retryAfterSeconds !== null && opts.now() - job.createdAt + r.retryAfterSeconds * 1000 < maxWaitMs) {
        job.notBefore = opts.now() + r.retryAfterSeconds * 1000;
        queue.push(job);
        queue.sort((a, b) => a.notBefore - b.notBefore || a.createdAt - b.createdAt);
      } else {
        job.answer = r.answer;
        job.finishedAt = opts.now();
      }
    } catch (err) {
      opts.log(`gateway queue: job ${job.id} failed: ${(err as Error).message}`);
      job.answer = { status: 500, body: JSON.stringify(errorBody("internal", "the queued request could not be run")), headers: {} };
      job.finishedAt = opts.now();
    } finally {
      running = null;
    }
    prune();
    schedule();
  }

  function prune(): void {
    const t = opts.now();
    for (const [id, j] of byId) if (j.finishedAt !== null && t - j.finishedAt > keepMs) byId.delete(id);
  }

  return {
    /**
     * null when the queue is full (the caller answers 503 instead). `owner`: the principal that
     * queued the job, the only one (besides an admin) that may read it.
     */
    enqueue(operation: string, payload: unknown, retryAfterSeconds: number, owner: string): { id: string; position: number } | null {
      if (queue.length >= maxQueued) return null;
      const t = opts.now();
      const job: TJob = { id: randomUUID(), operation, owner, payload, notBefore: t + retryAfterSeconds * 1000, createdAt: t, answer: null, finishedAt: null };
      queue.push(job);
      byId.set(job.id, job);
      schedule();
      return { id: job.id, position: queue.length };
    },
    /** The job as `reader` may see it: null when there is none or it is another's (`reader` null: an admin, sees every job). */
    get(id: string, reader: string | null): TJobView | null {
      const job = byId.get(id);
      if (!job || (reader !== null && job.owner !== reader)) return null;
      if (job.answer) return { status: "done", answer: job.answer };
      if (running === job) return { status: "running" };
      return { status: "queued", position: queue.indexOf(job) + 1, retryAfterSeconds: Math.max(1, Math.ceil((job.notBefore - opts.now()) / 1000)) };
    },
    get depth(): number {
      return queue.length;
    },
    /** Removes and returns the jobs still waiting (not the running one); their polls answer from the new home. */
    takeQueued(): TQueuedJob[] {
      const taken = queue.splice(0, queue.length);
      for (const j of taken) byId.delete(j.id);
      if (timer) clearTimeout(timer);
      timer = null;
      return taken.map(({ id, operation, owner, payload, notBefore, createdAt }) => ({ id, operation, owner, payload, notBefore, createdAt }));
    },
    /** Puts back a job takeQueued returned that could not be moved. */
    restore(job: TQueuedJob): void {
      const j: TJob = { ...job, answer: null, finishedAt: null };
      queue.push(j);
      queue.sort((a, b) => a.notBefore - b.notBefore || a.createdAt - b.createdAt);
      byId.set(j.id, j);
      schedule();
    },
    close(): void {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}

export type JobQueue = ReturnType<typeof createJobQueue>;
