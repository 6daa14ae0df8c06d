import type pg from "pg";
import { randomUUID } from "node:crypto";
import { errorBody } from "../http";
import type { TAnswer } from "./answer";
import { createJobQueue, type JobQueue, type TJobRun, type TJobView } from "./jobs";

/**
 * the token-gateway article's "degrade to queue", shared by every instance through `execute_job`: any instance
 * answers a poll, and any instance runs a due job. A job is claimed with FOR UPDATE SKIP LOCKED
 * under a lease its runner renews; a job whose lease lapsed (its instance died) is claimed again
 * by another. Its answer is stored once: a completion from a runner that lost the lease is
 * refused. So a job completes once; its provider call may be repeated only when an instance dies
 * mid-call, and then with the same Idempotency-Key (gateway.ts), so a provider that honours it
 * executes it once. Times are the database's, so instances with skewed clocks agree on what is due.
 * Without Postgres, an instance queues in its own memory (jobs.ts), says so in /health, and
 * moves those jobs into the table once Postgres answers again.
 */
export type TDurableJobOptions = {
  pool: pg.Pool;
  instanceId: string;
  run: TJobRun;
  log: (line: string) => void;
  now?: () => number;
  maxQueued?: number;
  maxWaitMs?: number;
  keepMs?: number;
  /** How often an idle instance looks for due jobs (default 500 ms). */
  pollMs?: number;
  /** How long a claim holds without renewal (default 30 s; renewed every third of it). */
  leaseMs?: number;
};

type TRow = { id: string; operation: string; owner: string; payload: unknown; waited_ms: number };

const CLAIM = `update execute_job set status = 'running', lease_owner = $1, lease_until = now() + make_interval(secs => $2), attempts = attempts + 1
  where id = (
    select id from execute_job
    where (status = 'queued' and not_before <= now()) or (status = 'running' and lease_until < now())
    order by not_before, created_at
    for update skip locked
    limit 1)
  returning id, operation, owner, payload, (extract(epoch from now() - created_at) * 1000)::float8 as waited_ms`;

const INSERT = `insert into execute_job (id, operation, owner, payload, not_before, created_at)
  select $1, $2, $3, $4::jsonb, now() + make_interval(secs => $5), now() - make_interval(secs => $6)
  where (select count(*) from execute_job where status <> 'done') < $7
  on conflict (id) do nothing
  returning id`;

/** The statements on `execute_job`; every change to a running job requires this instance's lease. */
function jobTable(pool: pg.Pool, instanceId: string, leaseSeconds: number) {
  return {
    async insert(
      id: string,
      operation: string,
      owner: string,
      payload: unknown,
      dueInSeconds: number,
      agoSeconds: number,
      maxQueued: number,
    ): Promise<boolean> {
      const r = await pool.query(INSERT, [id, operation, owner, JSON.stringify(payload), dueInSeconds, agoSeconds, maxQueued]);
      return r.rowCount === 1;
    },
    async claim(): Promise<TRow | null> {
      return (await pool.query<TRow>(CLAIM, [instanceId, leaseSeconds])).rows[0] ?? null;
    },
    renew(id: string): Promise<unknown> {
      return pool.query("update execute_job set lease_until = now() + make_interval(secs => $3) where id = $1 and lease_owner = $2 and status = 'running'", [
        id,
        instanceId,
        leaseSeconds,
      ]);
    },
    requeue(id: string, dueInSeconds: number): Promise<unknown> {
      return pool.query(
        "update execute_job set status = 'queued', not_before = now() + make_interval(secs => $3), lease_owner = null, lease_until = null where id = $1 and status = 'running' and lease_owner = $2",
        [id, instanceId, dueInSeconds],
      );
    },
    /** False when another instance holds the job now (this one's lease lapsed): its answer stands. */
    async complete(id: string, answer: TAnswer): Promise<boolean> {
      const r = await pool.query(
        "update execute_job set status = 'done', answer = $3::jsonb, finished_at = now(), lease_owner = null, lease_until = null where id = $1 and status = 'running' and lease_owner = $2",
        [id, instanceId, JSON.stringify(answer)],
      );
      return r.rowCount === 1;
    },
    async view(id: string) {
      const { rows } = await pool.query<{ owner: string; status: string; answer: TAnswer | null; wait_s: number; ahead: number }>(
        `select j.owner, j.status, j.answer, extract(epoch from j.not_before - now())::float8 as wait_s,
           (select count(*)::int from execute_job q where q.status = 'queued' and (q.not_before, q.created_at) < (j.not_before, j.created_at)) as ahead
         from execute_job j where j.id = $1`,
        [id],
      );
      return rows[0] ?? null;
    },
    async unanswered(): Promise<number> {
      return (await pool.query<{ n: number }>("select count(*)::int as n from execute_job where status <> 'done'")).rows[0]!.n;
    },
    prune(keepSeconds: number): Promise<unknown> {
      return pool.query("delete from execute_job where status = 'done' and finished_at < now() - make_interval(secs => $1)", [keepSeconds]);
    },
  };
}

type TTable = ReturnType<typeof jobTable>;

/** Runs a claimed job under its lease: stores the answer, or queues it again when nothing could serve it yet. */
async function runClaimed(table: TTable, row: TRow, o: { run: TJobRun; leaseSeconds: number; maxWaitMs: number; log: (line: string) => void }): Promise<void> {
  const renew = setInterval(() => void table.renew(row.id).catch(() => {}), (o.leaseSeconds * 1000) / 3);
  renew.unref();
  try {
    let result: Awaited<ReturnType<TJobRun>>;
    try {
      result = await o.run(row.payload, row.id);
    } catch (err) {
      o.log(`gateway queue: job ${row.id} failed: ${(err as Error).message}`);
      result = {
        answer: { status: 500, body: JSON.stringify(errorBody("internal", "the queued request could not be run")), headers: {} },
        retryAfterSeconds: null,
      };
    }
    const ra = result.retryAfterSeconds;
    if (ra !== null && row.waited_ms + ra * 1000 < o.maxWaitMs) await table.requeue(row.id, ra);
    else if (!(await table.complete(row.id, result.answer))) o.log(`gateway queue: job ${row.id} was claimed by another instance meanwhile; its answer stands`);
  } finally {
    clearInterval(renew);
  }
}

/** Moves jobs queued in memory while Postgres was away into the table, keeping their ids, owners and due times; what fails stays in memory. */
async function moveIntoTable(table: TTable, local: JobQueue, t: number): Promise<void> {
  const jobs = local.takeQueued();
  for (let i = 0; i < jobs.length; i++) {
    const job = jobs[i]!;
    try {
      // Jobs already accepted are never refused when they move.
      const due = Math.max(0, (job.notBefore - t) / 1000);
      await table.insert(job.id, job.operation, job.owner, job.payload, due, Math.max(0, (t - job.createdAt) / 1000), Number.MAX_SAFE_INTEGER);
    } catch (err) {
      for (const rest of jobs.slice(i)) local.restore(rest);
      throw err;
    }
  }
}

export function createDurableJobQueue(opts: TDurableJobOptions) {
  const now = opts.now ?? Date.now;
  const maxQueued = opts.maxQueued ?? 10_000;
  const maxWaitMs = opts.maxWaitMs ?? 15 * 60_000;
  const keepMs = opts.keepMs ?? 5 * 60_000;
  const pollMs = opts.pollMs ?? 500;
  const leaseSeconds = (opts.leaseMs ?? 30_000) / 1000;
  // While Postgres is unreachable: this instance's own queue, moved into the table later.
  const local = createJobQueue({ run: opts.run, now, maxQueued, maxWaitMs, keepMs, log: opts.log });
  let durable = true;
  let depth = 0;
  let closed = false;
  let working: Promise<void> | null = null;
  let lastPrune = 0;
  const table = jobTable(opts.pool, opts.instanceId, leaseSeconds);

  function failed(err: unknown): void {
    if (durable) opts.log(`gateway queue: Postgres unreachable (${(err as Error).message}); queueing in memory`);
    durable = false;
  }

  /** One pass: adopt local jobs, run due ones one at a time, refresh the depth, prune old answers. */
  async function work(): Promise<void> {
    try {
      if (!durable) {
        await opts.pool.query("select 1 from execute_job limit 1");
        durable = true;
        opts.log("gateway queue: Postgres is back; moving jobs queued in memory into execute_job");
      }
      await moveIntoTable(table, local, now());
      for (;;) {
        if (closed) return;
        const row = await table.claim();
        if (!row) break;
        await runClaimed(table, row, { run: opts.run, leaseSeconds, maxWaitMs, log: opts.log });
      }
      depth = await table.unanswered();
      if (now() - lastPrune > 30_000) {
        lastPrune = now();
        await table.prune(keepMs / 1000);
      }
    } catch (err) {
      failed(err);
    }
  }

  function wake(): void {
    if (closed || working) return;
    working = work().finally(() => (working = null));
  }

  const timer = setInterval(wake, pollMs);
  timer.unref();

  return {
    /** null when the queue is full: the caller answers 503 instead. `owner` as in jobs.ts. */
    async enqueue(operation: string, payload: unknown, retryAfterSeconds: number, owner: string): Promise<{ id: string; position: number } | null> {
      if (durable) {
        const id = randomUUID();
        try {
          if (!(await table.insert(id, operation, owner, payload, retryAfterSeconds, 0, maxQueued))) return null;
          return { id, position: ((await table.view(id))?.ahead ?? 0) + 1 };
        } catch (err) {
          failed(err);
        }
      }
      return local.enqueue(operation, payload, retryAfterSeconds, owner);
    },
    /** The job as `reader` may see it (null: an admin), or null when there is none or it is another's. Throws when only Postgres could tell. */
    async get(id: string, reader: string | null): Promise<TJobView | null> {
      const mine = local.get(id, reader);
      if (mine) return mine;
      const row = await table.view(id);
      if (!row || (reader !== null && row.owner !== reader)) return null;
      if (row.status === "done" && row.answer) return { status: "done", answer: row.answer };
      if (row.status === "running") return { status: "running" };
      return { status: "queued", position: row.ahead + 1, retryAfterSeconds: Math.max(1, Math.ceil(row.wait_s)) };
    },
    /** Jobs not yet answered, cluster-wide as of the last pass, plus this instance's in memory. */
    get depth(): number {
      return depth + local.depth;
    },
    /** False while this instance queues in memory because Postgres is unreachable. */
    get durable(): boolean {
      return durable;
    },
    /** Runs a pass now (tests; the timer does it every pollMs). */
    async drain(): Promise<void> {
      wake();
      await working;
    },
    async close(): Promise<void> {
      closed = true;
      clearInterval(timer);
      local.close();
      await working;
    },
  };
}

export type DurableJobQueue = ReturnType<typeof createDurableJobQueue>;
