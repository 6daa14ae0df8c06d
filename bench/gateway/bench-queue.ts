import pg from "pg";
import { parseArgs } from "node:util";
import { createScratchDatabase, type TScratchDatabase } from "../../lib/db/drift";
import { applyMigrations } from "../../lib/db/migrate";
import type { TEmbeddedDatabase } from "../../lib/db/embedded";
import { createDurableJobQueue, type DurableJobQueue } from "../../lib/gateway/durable-jobs";
import { startThrowawayCluster } from "../../test/support/throwaway-cluster";
import { quantile, writeBenchResult } from "../lib/bench-results";

// `npm run bench:queue -- [--jobs 2000] [--paced 100]`: execute mode's shared queue
// (lib/gateway/durable-jobs.ts) on a database of its own, three queue instances each on its own
// pool as three server processes would be: (1) enqueue rate from one client; (2) drain rate of
// --jobs jobs made due together, no-op runs, claimed by the three at once; (3) latency from a
// job falling due (enqueued due at once) to the start of its run, for --paced jobs at random
// moments, with the default 500 ms idle poll. Reference in the same run: plain `select 1` round trips per second on the same pool.

const { values } = parseArgs({ options: { jobs: { type: "string" }, paced: { type: "string" } } });
const JOBS = Number(values.jobs ?? 2_000);
const PACED = Number(values.paced ?? 100);
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

async function selectOneRate(pool: pg.Pool): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < 2_000; i++) await pool.query("select 1");
  return 2_000 / ((performance.now() - t0) / 1000);
}

async function main(): Promise<void> {
  let cluster: TEmbeddedDatabase | null = null;
  let scratch: TScratchDatabase | null = null;
  const pools: pg.Pool[] = [];
  const queues: DurableJobQueue[] = [];
  try {
    const admin = process.env.DATABASE_URL ?? (cluster = await startThrowawayCluster()).adminUrl;
    scratch = await createScratchDatabase(admin, "switchyard_bench_queue");
    await applyMigrations(scratch.url);
    const started = new Map<string, number>();
    let runs = 0;
    for (const id of ["q1", "q2", "q3"]) {
      const pool = new pg.Pool({ connectionString: scratch.url, max: 4 });
      pools.push(pool);
      queues.push(
        createDurableJobQueue({
          pool,
          instanceId: id,
          log: () => {},
          maxQueued: JOBS * 2,
          run: async (payload) => {
            runs++;
            const key = (payload as { key?: string }).key;
            if (key) started.set(key, performance.now());
            return { answer: { status: 200, body: "{}", headers: {} }, retryAfterSeconds: null };
          },
        }),
      );
    }
    const reference = await selectOneRate(pools[0]!);

    // (1) and (2): enqueue JOBS due now from one client, then let the three drain them together.
    const t0 = performance.now();
    // Due in an hour, so no instance's poll starts draining while they are being queued.
    for (let i = 0; i < JOBS; i++) await queues[i % 3]!.enqueue("BENCH", { n: i }, 3_600, "bench");
    const enqueueRate = JOBS / ((performance.now() - t0) / 1000);
    await pools[0]!.query("update execute_job set not_before = now()");
    const t1 = performance.now();
    await Promise.all(queues.map((q) => q.drain()));
    while (runs < JOBS) await Promise.all(queues.map((q) => q.drain()));
    const drainRate = JOBS / ((performance.now() - t1) / 1000);

    // (3): paced jobs, each due at once, picked up by whichever instance polls first.
    const latencies: number[] = [];
    for (let i = 0; i < PACED; i++) {
      const key = `paced-${i}`;
      const at = performance.now();
      await queues[i % 3]!.enqueue("BENCH", { key }, 0, "bench");
      while (!started.has(key)) await new Promise((r) => setTimeout(r, 2));
      latencies.push(started.get(key)! - at);
      // A random moment within the poll period, so the jobs do not fall due in step with the polls.
      await new Promise((r) => setTimeout(r, Math.random() * 1_000));
    }
    latencies.sort((a, b) => a - b);
    const file = writeBenchResult({
      name: "queue",
      title: "Execute queue shared in Postgres (three instances)",
      command: `npm run bench:queue -- --jobs ${JOBS} --paced ${PACED}`,
      parameters: { jobs: JOBS, paced: PACED, instances: 3, pollMs: 500, database: process.env.DATABASE_URL ? "DATABASE_URL" : "embedded throwaway" },
      figures: [
        { label: "reference: select 1 round trips, one client", value: Math.round(reference), unit: "queries/s" },
        { label: "enqueue, one client", value: Math.round(enqueueRate), unit: "jobs/s" },
        { label: "drain by three instances, no-op runs", value: Math.round(drainRate), unit: "jobs/s" },
        { label: "due to run start, p50", value: round(quantile(latencies, 0.5)), unit: "ms" },
        { label: "due to run start, p99", value: round(quantile(latencies, 0.99)), unit: "ms", target: "≤ one poll (500 ms)" },
      ],
      invariants: [{ label: "every job run exactly once", ok: runs === JOBS + PACED, detail: `${runs} runs for ${JOBS + PACED} jobs` }],
    });
    console.log(`bench:queue: wrote ${file}`);
    if (runs !== JOBS + PACED) process.exitCode = 1;
  } finally {
    await Promise.all(queues.map((q) => q.close()));
    await Promise.all(pools.map((p) => p.end()));
    await scratch?.drop();
    await cluster?.stop();
  }
}

void main();
