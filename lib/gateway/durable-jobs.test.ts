import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "@/test/support/database";
import { startTcpProxy } from "@/test/support/tcp-proxy";
import { createDurableJobQueue } from "./durable-jobs";
import type { TJobRun } from "./jobs";

/**
 * The execute queue as several instances share it, each a queue object on its own pool over one
 * real database: claims are exclusive, a lapsed lease hands a job over, a runner that lost its
 * lease cannot overwrite the answer, and an instance without Postgres queues in memory and moves
 * its jobs into the table when Postgres is back.
 */
let db: TTestDatabase;
const pools: pg.Pool[] = [];

function pool(url = db.url): pg.Pool {
  const p = new pg.Pool({ connectionString: url, max: 3, connectionTimeoutMillis: 1_000 });
  // Dropping the database at the end, or a cut proxy, ends clients: not a test failure.
  p.on("error", () => {});
  p.on("connect", (c) => c.on("error", () => {}));
  pools.push(p);
  return p;
}

const ok = (body: unknown) => ({ answer: { status: 200, body: JSON.stringify(body), headers: {} }, retryAfterSeconds: null });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function queue(instanceId: string, run: TJobRun, extra: Partial<Parameters<typeof createDurableJobQueue>[0]> = {}) {
  return createDurableJobQueue({ pool: pool(), instanceId, run, log: () => {}, pollMs: 3_600_000, ...extra });
}

async function waitFor<T>(check: () => Promise<T | null | undefined | false>, ms = 10_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error("condition not met");
    await sleep(20);
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end().catch(() => {})));
  await db?.drop();
});

describe("the execute queue in Postgres", () => {
  it("runs each of 200 jobs exactly once across four instances claiming at once", async () => {
    const runs = new Map<number, string[]>();
    const instances = ["a", "b", "c", "d"].map((id) =>
      queue(id, async (payload) => {
        const n = (payload as { n: number }).n;
        runs.set(n, [...(runs.get(n) ?? []), id]);
        await sleep(1);
        return ok({ n, by: id });
      }),
    );
    const ids: string[] = [];
    for (let n = 0; n < 200; n++) ids.push((await instances[n % 4]!.enqueue("OP", { n }, 0, "key-1"))!.id);
    await Promise.all(instances.map((q) => q.drain()));
    expect([...runs.values()].filter((by) => by.length !== 1)).toEqual([]);
    expect(runs.size).toBe(200);
    // Every instance took part, and any instance answers any job's poll.
    expect(new Set([...runs.values()].flat()).size).toBe(4);
    const view = await instances[3]!.get(ids[0]!, "key-1");
    expect(view).toMatchObject({ status: "done", answer: { status: 200 } });
    await Promise.all(instances.map((q) => q.close()));
  });

  it("answers positions in due order, and a job only to the key that queued it or an admin", async () => {
    const q = queue("p", async () => ok({}));
    const first = (await q.enqueue("OP", {}, 60, "key-a"))!;
    const second = (await q.enqueue("OP", {}, 120, "key-a"))!;
    expect([first.position, second.position]).toEqual([1, 2]);
    expect(await q.get(second.id, "key-a")).toMatchObject({ status: "queued", position: 2 });
    expect(await q.get(second.id, "key-b")).toBeNull();
    expect(await q.get(second.id, null)).toMatchObject({ status: "queued" });
    expect(await q.get("00000000-0000-4000-8000-000000000000", null)).toBeNull();
    await q.close();
    await pool().query("delete from execute_job");
  });

  it("hands a job whose runner died to another instance, and refuses the dead runner's late answer", async () => {
    let release: () => void = () => {};
    const stuck = new Promise<void>((r) => (release = r));
    const dying = queue(
      "dying",
      async () => {
        await stuck;
        return ok({ by: "dying" });
      },
      { leaseMs: 600 },
    );
    const job = (await dying.enqueue("OP", {}, 0, "key-1"))!;
    const pass = dying.drain();
    await waitFor(async () => (await dying.get(job.id, "key-1"))?.status === "running");
    // The instance stops renewing, as a SIGKILLed one would: its lease lapses.
    const p = pool();
    await p.query("update execute_job set lease_until = now() - interval '1 second' where id = $1", [job.id]);
    const heir = queue("heir", async () => ok({ by: "heir" }));
    await heir.drain();
    expect(await heir.get(job.id, "key-1")).toEqual({ status: "done", answer: { status: 200, body: '{"by":"heir"}', headers: {} } });
    release();
    await pass;
    const row = (await p.query("select answer, attempts from execute_job where id = $1", [job.id])).rows[0];
    expect(row).toMatchObject({ answer: { body: '{"by":"heir"}' }, attempts: 2 });
    await Promise.all([dying.close(), heir.close()]);
  });

  it("re-queues a job nothing can serve yet, and refuses jobs beyond maxQueued cluster-wide", async () => {
    let tries = 0;
    const q = queue("r", async () => (++tries < 3 ? { answer: { status: 503, body: "{}", headers: {} }, retryAfterSeconds: 0.05 } : ok({ tries })), {
      maxQueued: 2,
    });
    const other = queue("r2", async () => ok({}), { maxQueued: 2 });
    const job = (await q.enqueue("OP", {}, 0, "k"))!;
    expect(await other.enqueue("OP", {}, 600, "k")).not.toBeNull();
    expect(await q.enqueue("OP", {}, 600, "k")).toBeNull();
    const done = await waitFor(async () => {
      await q.drain();
      const v = await q.get(job.id, "k");
      return v?.status === "done" ? v : null;
    });
    expect(done).toMatchObject({ answer: { body: '{"tries":3}' } });
    await Promise.all([q.close(), other.close()]);
    await pool().query("delete from execute_job");
  });

  it("queues in memory while Postgres is unreachable, says so, and moves the jobs into the table when it is back", async () => {
    const u = new URL(db.url);
    const proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port || 5432) });
    const proxied = new URL(db.url);
    proxied.hostname = "127.0.0.1";
    proxied.port = String(proxy.port);
    const runs: string[] = [];
    const isolated = createDurableJobQueue({
      pool: pool(proxied.toString()),
      instanceId: "isolated",
      run: async () => {
        runs.push("isolated");
        return ok({ by: "isolated" });
      },
      log: () => {},
      pollMs: 3_600_000,
    });
    proxy.cut();
    const job = (await isolated.enqueue("OP", { n: 1 }, 30, "key-1"))!;
    expect(job).toMatchObject({ position: 1 });
    expect(isolated.durable).toBe(false);
    expect(isolated.depth).toBe(1);
    expect(await isolated.get(job.id, "key-1")).toMatchObject({ status: "queued" });
    proxy.restore();
    await isolated.drain();
    expect(isolated.durable).toBe(true);
    // Now in the table: another instance sees it, due at the time it was given (about 30 s away).
    const p = pool();
    const row = (await p.query("select owner, extract(epoch from not_before - now())::float8 as due_s from execute_job where id = $1", [job.id])).rows[0];
    expect(row.owner).toBe("key-1");
    expect(row.due_s).toBeGreaterThan(20);
    await p.query("update execute_job set not_before = now() where id = $1", [job.id]);
    const heir = queue("heir2", async () => {
      runs.push("heir2");
      return ok({ by: "heir2" });
    });
    await heir.drain();
    await isolated.drain();
    expect(runs).toEqual(["heir2"]);
    expect(await isolated.get(job.id, "key-1")).toMatchObject({ status: "done" });
    await Promise.all([isolated.close(), heir.close()]);
    await proxy.close();
  });
});
