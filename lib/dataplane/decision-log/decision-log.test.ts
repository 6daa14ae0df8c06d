/* eslint-disable @typescript-eslint/no-explicit-any -- JSON response bodies are asserted field by field */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { adminDatabaseUrl, createTestDatabase, type TTestDatabase } from "@/test/support/database";
import { dataPlaneSettings, type TDataPlaneSettings } from "../settings";
import { startStandaloneDataPlane, type TStandaloneServer } from "../../../test/support/standalone-dataplane";
import { announceBacklog, readBacklog, withdrawBacklog, type TSpoolRange } from "./backlog";
import { listPartitionName, maintainPartitions, partitionName } from "./partitions";
import { listId } from "../decide/body";
import { readDecisionRecord } from "./lookup";
import { createListMemory, insertDecisions, replayDecisions, type TDecisionRow, type TDecisionWrite } from "./rows";
import { createDecisionLog } from "./writer";
import { createSpool } from "../spool";

const whole = (rows: readonly TDecisionRow[]): TDecisionWrite[] => rows.map((row) => ({ row, stored: null }));

const DAY = 86_400_000;
let db: TTestDatabase;
let pool: pg.Pool;
let admin: pg.Client;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 3 });
  pool.on("error", () => {});
  admin = new pg.Client({ connectionString: adminDatabaseUrl() });
  await admin.connect();
});

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
  await pool.query("truncate decision");
});

afterAll(async () => {
  await admin?.query(`alter database ${pg.escapeIdentifier(db.name)} allow_connections true`).catch(() => {});
  await admin?.end();
  await pool?.end();
  await db?.drop();
});

/** The spool announcements the data plane made (backlog.ts), passed on to the table. */
const announcements: Array<TSpoolRange | "withdrawn"> = [];

async function start(overrides: Partial<TDataPlaneSettings> = {}, announceError: unknown = null): Promise<TStandaloneServer> {
  const spoolDir = await mkdtemp(path.join(tmpdir(), "sy-spool-"));
  const settings = { ...dataPlaneSettings({}, process.cwd()), spoolDir, ...overrides };
  const backlog = {
    announce: async (range: TSpoolRange) => {
      announcements.push(range);
      if (announceError) throw announceError;
      await announceBacklog(pool, settings.instanceId, range);
    },
    withdraw: async () => {
      announcements.push("withdrawn");
      await withdrawBacklog(pool, settings.instanceId);
    },
  };
  const server = await startStandaloneDataPlane({ databaseUrl: db.url, settings, decisionLog: { probeIntervalMs: 100, backlog } });
  cleanups.push(() => rm(spoolDir, { recursive: true, force: true }));
  cleanups.push(() => server.close());
  return server;
}

async function decide(server: TStandaloneServer, requestId: string) {
  const res = await fetch(`${server.url}/api/v1/decide`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ operation: "SEND_SMS", region: "EU", requestId, explain: "full" }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

async function countRows(where = "true"): Promise<number> {
  return (await pool.query<{ n: number }>(`select count(*)::int as n from decision where ${where}`)).rows[0]!.n;
}

async function partitions(): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>(
    `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
      where p.relname = 'decision' order by 1`,
  );
  return rows.map((r) => r.name);
}

async function until(cond: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("partitions", () => {
  it("creates daily partitions from yesterday through today + N, idempotently", async () => {
    const now = Date.UTC(2031, 0, 10, 12);
    const first = await maintainPartitions(pool, { now, daysAhead: 2, retentionDays: 30 });
    expect(first.created).toEqual(["decision_p20310109", "decision_p20310110", "decision_p20310111", "decision_p20310112"]);
    const again = await maintainPartitions(pool, { now, daysAhead: 2, retentionDays: 30 });
    expect(again).toEqual({ created: [], dropped: [] });
    await pool.query(
      `insert into decision (id, created_at, operation, region, request_id, reason_code, stale, record, durability, instance_id)
       values (gen_random_uuid(), '2031-01-11T23:59:59.999Z', 'SEND_SMS', 'EU', 'p-1', 'weighted_share', false, '{}', 'sync', 't')`,
    );
    const { rows } = await pool.query("select tableoid::regclass::text as part from decision where request_id = 'p-1'");
    expect(rows[0].part).toBe("decision_p20310111");
    // The candidate lists have the same days.
    const lists = await pool.query<{ name: string }>(
      "select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'decision_candidates'::regclass and c.relname like 'decision_candidates_p2031%' order by 1",
    );
    expect(lists.rows.map((r) => r.name)).toEqual(
      ["20310109", "20310110", "20310111", "20310112"].map((d) => listPartitionName(Date.UTC(+d.slice(0, 4), +d.slice(4, 6) - 1, +d.slice(6)))),
    );
    await pool.query(`insert into decision_candidates (id, day, body) values (gen_random_uuid(), '2031-01-11', '[]')`);
  });

  it("drops partitions past retention, with their rows", async () => {
    const start = Date.UTC(2032, 5, 1, 8);
    await maintainPartitions(pool, { now: start, daysAhead: 1, retentionDays: 3 });
    await pool.query(
      `insert into decision (id, created_at, operation, region, request_id, reason_code, stale, record, durability, instance_id)
       values (gen_random_uuid(), '2032-06-01T09:00:00Z', 'SEND_SMS', 'EU', 'old-1', 'weighted_share', false, '{}', 'sync', 't')`,
    );
    await pool.query(`insert into decision_candidates (id, day, body) values (gen_random_uuid(), '2032-06-01', '[]')`);
    const later = await maintainPartitions(pool, { now: start + 5 * DAY, daysAhead: 1, retentionDays: 3 });
    expect(later.dropped).toEqual(expect.arrayContaining([partitionName(Date.UTC(2032, 4, 31)), partitionName(Date.UTC(2032, 5, 1))]));
    expect(later.dropped).not.toContain(partitionName(Date.UTC(2032, 5, 3)));
    expect(await partitions()).toContain(partitionName(Date.UTC(2032, 5, 7)));
    expect(await countRows("request_id = 'old-1'")).toBe(0);
    // That day's candidate lists went with it; the days kept keep theirs.
    const kept = await pool.query<{ name: string }>(
      "select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'decision_candidates'::regclass",
    );
    expect(kept.rows.map((r) => r.name)).not.toContain(listPartitionName(Date.UTC(2032, 5, 1)));
    expect(kept.rows.map((r) => r.name)).toContain(listPartitionName(Date.UTC(2032, 5, 7)));
    expect((await pool.query("select 1 from decision_candidates where day = '2032-06-01'")).rowCount).toBe(0);
  });

  it("the data plane creates today's partitions at start", async () => {
    await start();
    expect(await partitions()).toContain(partitionName(Date.now()));
    expect(await partitions()).toContain(partitionName(Date.now() + 3 * DAY));
  });
});

describe("batch insert", () => {
  const at = Date.UTC(2033, 2, 4, 10);
  function row(requestId: string, body: string, offsetMs = 0): TDecisionRow {
    return {
      id: crypto.randomUUID(),
      createdAt: at + offsetMs,
      operation: "SEND_SMS",
      region: "EU",
      requestId,
      policyVersion: "v1",
      shadowVersion: null,
      selectedProvider: "provider_A",
      reasonCode: "weighted_share",
      shadowPick: null,
      shadowAgrees: null,
      scoreMargin: 1.5,
      stale: false,
      metricAgeMs: 1200,
      fallbackAction: null,
      degraded: false,
      body,
      durability: "sync",
      instanceId: "t",
    };
  }

  it("stores each record as the exact text sent, multi-byte and escaped characters included, and finds repeats by request id", async () => {
    await maintainPartitions(pool, { now: at, daysAhead: 1, retentionDays: 3 });
    const bodies = [
      JSON.stringify({ requestId: "ascii", quote: 'a "quoted" \\ value' }),
      JSON.stringify({ requestId: "multi-byte é ü 東京 🚀", nested: { list: [1, 2.5, null, true] } }),
      JSON.stringify({ requestId: "lone \ud800 surrogate, NUL \u0000 and newline \n" }),
    ];
    const rows = bodies.map((b, i) => row(`r-${i}`, b, i));
    const client = await pool.connect();
    try {
      expect((await insertDecisions(client, whole(rows))).size).toBe(0);
      const stored = await pool.query<{ id: string; record: string }>(
        "select id, record::text as record from decision where instance_id = 't' order by created_at",
      );
      expect(stored.rows).toEqual(rows.map((r) => ({ id: r.id, record: r.body })));

      // The same request ids again (a retry reaching another instance): nothing inserted, the logged decisions returned.
      const retry = rows.map((r) => row(r.requestId, "{}", 10));
      const existing = await insertDecisions(client, whole(retry));
      expect([...existing.entries()]).toEqual(retry.map((r, i) => [r.id, { id: rows[i]!.id, body: bodies[i] }]));
      expect(await countRows("instance_id = 't'")).toBe(3);

      // Replaying a spooled segment twice writes it once.
      const spooled = [row("s-1", JSON.stringify({ spooled: "ü" }), 20)];
      await replayDecisions(client, spooled);
      await replayDecisions(client, spooled);
      expect(await countRows("request_id = 's-1'")).toBe(1);
    } finally {
      client.release();
    }
  });

  it("a requestId is its API key's own: another key's same requestId is logged, the same key's is answered with the first", async () => {
    await maintainPartitions(pool, { now: at, daysAhead: 1, retentionDays: 3 });
    const keyed = (apiKeyId: string | null, offset: number): TDecisionRow => ({
      ...row("order-17788", JSON.stringify({ by: apiKeyId }), offset),
      apiKeyId,
      offeredProviders: "provider_A,provider_B",
    });
    const first = keyed("key-victim", 30);
    const client = await pool.connect();
    try {
      expect((await insertDecisions(client, whole([first]))).size).toBe(0);
      const attacker = keyed("key-attacker", 31);
      expect((await insertDecisions(client, whole([attacker]))).size).toBe(0);
      const retry = keyed("key-victim", 32);
      expect([...(await insertDecisions(client, whole([retry]))).values()]).toEqual([{ id: first.id, body: first.body }]);
      // A spooled row keeps its key when replayed; one spooled before keys existed replays with none.
      const spooled = keyed("key-spooled", 33);
      const legacy: TDecisionRow = { ...row("legacy", "{}", 34) };
      await replayDecisions(client, [{ ...spooled, requestId: "spooled" }, legacy]);
    } finally {
      client.release();
    }
    const stored = await pool.query(
      `select request_id, api_key_id, offered_providers from decision where request_id in ('order-17788', 'spooled', 'legacy') order by created_at`,
    );
    expect(stored.rows).toEqual([
      { request_id: "order-17788", api_key_id: "key-victim", offered_providers: "provider_A,provider_B" },
      { request_id: "order-17788", api_key_id: "key-attacker", offered_providers: "provider_A,provider_B" },
      { request_id: "spooled", api_key_id: "key-spooled", offered_providers: "provider_A,provider_B" },
      { request_id: "legacy", api_key_id: null, offered_providers: null },
    ]);
  });

  it("stores every column as given, NULLs included, both inserted and replayed", async () => {
    await maintainPartitions(pool, { now: at, daysAhead: 1, retentionDays: 3 });
    const full: TDecisionRow = {
      ...row("c-full", "{}", 7),
      policyVersion: "v9",
      shadowVersion: "v10",
      shadowPick: "provider_B",
      shadowAgrees: false,
      scoreMargin: -0.125,
      stale: true,
      // Older than int4 milliseconds (about 25 days): stored as the maximum instead of failing the batch.
      metricAgeMs: 3_000_000_000,
      fallbackAction: "priority_order",
      degraded: true,
      durability: "async",
    };
    const empty: TDecisionRow = {
      ...row("c-empty", "{}", 8),
      policyVersion: null,
      selectedProvider: null,
      scoreMargin: null,
      metricAgeMs: null,
    };
    const replayed: TDecisionRow = { ...full, id: crypto.randomUUID(), requestId: "c-replayed", createdAt: at + 9 };
    const client = await pool.connect();
    try {
      expect((await insertDecisions(client, whole([full, empty]))).size).toBe(0);
      await replayDecisions(client, [replayed]);
    } finally {
      client.release();
    }
    const stored = await pool.query(
      `select id, (extract(epoch from created_at) * 1000)::float8 as "createdAt", operation, region, request_id as "requestId",
              policy_version as "policyVersion", shadow_version as "shadowVersion", selected_provider as "selectedProvider",
              reason_code as "reasonCode", shadow_pick as "shadowPick", shadow_agrees as "shadowAgrees", score_margin as "scoreMargin",
              stale, metric_age_ms as "metricAgeMs", fallback_action as "fallbackAction", degraded, record::text as body, durability,
              instance_id as "instanceId", candidates_id
         from decision where request_id like 'c-%' order by created_at`,
    );
    const expected = (r: TDecisionRow) => ({ ...r, metricAgeMs: r.metricAgeMs === null ? null : Math.min(r.metricAgeMs, 2 ** 31 - 1), candidates_id: null });
    expect(stored.rows).toEqual([full, empty, replayed].map(expected));
  });

  it("stores a candidate list once per day for the rows that share it, and gives back every record's exact text", async () => {
    await maintainPartitions(pool, { now: at, daysAhead: 1, retentionDays: 3 });
    const listA = [
      { provider: "provider_A", detail: '東京 🚀 "quoted"', probability: 0.7 },
      { provider: "provider_B", probability: 0.3 },
    ];
    const listB = [{ provider: "provider_B", probability: 1 }];
    // A request id that spells the placeholder must not be taken for it.
    const split = (requestId: string, candidates: unknown[], offsetMs: number): TDecisionWrite => {
      const record = { decisionId: "x", requestId, selected: "provider_A", candidates, scoreMargin: 0.5, degraded: false };
      const json = JSON.stringify(candidates);
      return {
        row: row(requestId, JSON.stringify(record), offsetMs),
        stored: { text: JSON.stringify({ ...record, candidates: null }), list: { id: listId(json), json } },
      };
    };
    const writes = [split('l-1 "candidates":null', listA, 100), split("l-2 é", listA, 101), split("l-3", listB, 102), split("l-4 next day", listA, DAY)];
    const lists = createListMemory();
    const client = await pool.connect();
    try {
      expect((await insertDecisions(client, writes.slice(0, 3), lists)).size).toBe(0);
      expect((await insertDecisions(client, writes.slice(3), lists)).size).toBe(0);
      expect(lists.size).toBe(3);
      const stored = await pool.query<{ request_id: string; record: string; text: string; list: string | null }>(
        `select request_id, record::text as record, decision_record_text(record, candidates_id, created_at) as text, candidates_id::text as list
           from decision where request_id like 'l-%' order by created_at`,
      );
      expect(stored.rows.map((r) => r.text)).toEqual(writes.map((w) => w.row.body));
      expect(stored.rows.map((r) => r.record)).toEqual(writes.map((w) => w.stored!.text));
      expect(stored.rows.map((r) => r.list)).toEqual(writes.map((w) => w.stored!.list.id));
      // listA on two days, listB on one.
      const kept = await pool.query<{ day: string; n: string }>("select day::text, count(*) as n from decision_candidates group by day order by day");
      expect(kept.rows).toEqual([
        { day: "2033-03-04", n: "2" },
        { day: "2033-03-05", n: "1" },
      ]);

      // A retry gets the whole text back; a list sent again (another instance, or forgotten) is kept once.
      const retry = split("l-2 é", listA, 200);
      const existing = await insertDecisions(client, [retry, split("l-5", listB, 201)], createListMemory());
      expect([...existing.values()]).toEqual([{ id: writes[1]!.row.id, body: writes[1]!.row.body }]);
      expect(await countRows("request_id like 'l-%'")).toBe(5);
      expect((await pool.query("select 1 from decision_candidates")).rowCount).toBe(3);
      expect(await readDecisionRecord(pool, writes[0]!.row.id)).toEqual(JSON.parse(writes[0]!.row.body));
    } finally {
      client.release();
    }
  });
});

describe("async durability", () => {
  it("answers before the commit and rejects with 503 + Retry-After when the buffer is full, losing nothing acknowledged", async () => {
    const server = await start({ durability: "async", maxBuffered: 5 });
    // Hold the table so no batch can commit and the buffer fills.
    const blocker = new pg.Client({ connectionString: db.url });
    await blocker.connect();
    await blocker.query("begin");
    await blocker.query("lock table decision in access exclusive mode");
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await decide(server, `async-${i}`));
    const ok = answers.filter((a) => a.status === 200);
    const busy = answers.filter((a) => a.status === 503);
    expect(ok.length).toBe(5);
    expect(ok.every((a) => a.headers.get("x-decision-durability") === "buffered")).toBe(true);
    expect(busy.length).toBe(3);
    expect(busy[0]!.headers.get("retry-after")).toBe("1");
    expect(busy[0]!.body.error.code).toBe("decision_log_unavailable");
    await blocker.query("rollback");
    await blocker.end();
    await server.dataPlane.decisionLog.drain();
    expect(await countRows("request_id like 'async-%'")).toBe(5);
  });
});

describe("Postgres unreachable", () => {
  const block = () => {
    cleanups.push(unblock);
    return admin
      .query(`alter database ${pg.escapeIdentifier(db.name)} allow_connections false`)
      .then(() => admin.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()", [db.name]));
  };
  const unblock = () => admin.query(`alter database ${pg.escapeIdentifier(db.name)} allow_connections true`);

  it("decide keeps answering from cached state, spools to disk, and replays into Postgres when it returns", async () => {
    const server = await start();
    const before = await decide(server, "outage-0");
    expect(before.headers.get("x-decision-durability")).toBe("committed");
    // The database that comes back may have lost what this instance committed (a restore, a failover
    // to a lagging replica): its candidate lists must be sent again, not assumed stored.
    await pool.query("delete from decision_candidates");

    await block();
    const during = [];
    for (let i = 1; i <= 30; i++) during.push(await decide(server, `outage-${i}`));
    expect(during.every((d) => d.status === 200)).toBe(true);
    expect(during.every((d) => d.headers.get("x-decision-durability") === "spooled")).toBe(true);
    expect(during.at(-1)!.body.degraded).toBe(true);
    expect(server.dataPlane.health().dbAvailable).toBe(false);
    expect(server.dataPlane.health().decisionLog.spool.usedBytes).toBeGreaterThan(0);
    // The same request retried during the outage still gets its decision.
    expect((await decide(server, "outage-5")).body.decisionId).toBe(during[4]!.body.decisionId);

    announcements.length = 0;
    await unblock();
    await until(
      async () =>
        server.dataPlane.health().dbAvailable &&
        !server.dataPlane.decisionLog.stats().spool.replaying &&
        server.dataPlane.decisionLog.stats().spool.usedBytes === 0,
    );
    const ids = during.map((d) => d.body.decisionId as string);
    // Before replaying, the instance announced the spooled decisions' time range (other instances hold
    // outcomes for them meanwhile), and withdrew it once the spool was empty.
    await until(() => announcements.at(-1) === "withdrawn");
    const times = during.map((d) => d.body.at as number);
    expect(announcements[0]).toEqual({ oldest: Math.min(...times), newest: Math.max(...times) });
    expect(await readBacklog(pool)).toEqual([]);
    const { rows } = await pool.query<{ n: number }>("select count(*)::int as n from decision where id = any($1::uuid[])", [ids]);
    expect(rows[0]!.n).toBe(30);
    expect(await countRows("request_id like 'outage-%'")).toBe(31);
    const after = await decide(server, "outage-after");
    expect(after.headers.get("x-decision-durability")).toBe("committed");
    expect(after.body.degraded).toBe(false);
    expect(((await readDecisionRecord(pool, after.body.decisionId as string)) as { candidates: unknown }).candidates).toEqual(after.body.candidates);
  });

  it("replays even when the spool backlog cannot be announced (a statement error, not an outage)", async () => {
    const server = await start({}, Object.assign(new Error('relation "decision_spool_backlog" does not exist'), { severity: "ERROR", code: "42P01" }));
    await block();
    for (let i = 0; i < 5; i++) expect((await decide(server, `unannounced-${i}`)).status).toBe(200);
    await unblock();
    await until(async () => server.dataPlane.health().dbAvailable && server.dataPlane.decisionLog.stats().spool.usedBytes === 0);
    expect(await countRows("request_id like 'unannounced-%'")).toBe(5);
  });

  it("answers 503 only once the spool's disk budget is used up", async () => {
    const server = await start({ spoolMaxBytes: 12_000 });
    await block();
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await decide(server, `full-${i}`));
    const spooled = answers.filter((a) => a.status === 200);
    expect(spooled.length).toBeGreaterThan(0);
    expect(answers.at(-1)!.status).toBe(503);
    expect(answers.at(-1)!.headers.get("retry-after")).toBeTruthy();
    await unblock();
    await until(async () => server.dataPlane.health().dbAvailable && server.dataPlane.decisionLog.stats().spool.usedBytes === 0);
    expect(await countRows("request_id like 'full-%'")).toBe(spooled.length);
  });
});

describe("deferred rows (execute)", () => {
  const at = Date.now();
  function row(requestId: string): TDecisionRow {
    return {
      id: crypto.randomUUID(),
      createdAt: at,
      operation: "SEND_SMS",
      region: "EU",
      requestId,
      policyVersion: "v1",
      shadowVersion: null,
      selectedProvider: "provider_A",
      reasonCode: "weighted_share",
      shadowPick: null,
      shadowAgrees: null,
      scoreMargin: 1.5,
      stale: false,
      metricAgeMs: 1200,
      fallbackAction: null,
      degraded: false,
      body: "{}",
      durability: "sync",
      instanceId: "deferred",
    };
  }

  async function writer(lingerMs?: number) {
    const dir = await mkdtemp(path.join(tmpdir(), "sy-spool-"));
    const log = createDecisionLog({
      pool,
      spool: createSpool<TDecisionRow>({ dir, name: "decisions", maxBytes: 1 << 20 }),
      durability: "sync",
      partitions: { daysAhead: 1, retentionDays: 3 },
      lingerMs,
    });
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    cleanups.push(() => log.close());
    await maintainPartitions(pool, { now: at, daysAhead: 1, retentionDays: 3 });
    return log;
  }
  const settled = (p: Promise<unknown>) => Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), 150))]);

  it("waits for a demand, then writes every deferred row in one transaction", async () => {
    const log = await writer();
    const a = log.submit(row("d-1"), null, 60_000);
    const b = log.submit(row("d-2"), null, 60_000);
    expect(await settled(a)).toBe(false);
    expect(await countRows("instance_id = 'deferred'")).toBe(0);
    log.demand();
    expect(await a).toEqual({ status: "committed" });
    expect(await b).toEqual({ status: "committed" });
    expect(log.stats()).toMatchObject({ transactions: 1, rowsCommitted: 2 });
  });

  it("goes with a batch a row that is not deferred starts, or by itself when its time is up", async () => {
    const log = await writer();
    const deferred = log.submit(row("d-3"), null, 60_000);
    await log.submit(row("e-1"));
    expect(await deferred).toEqual({ status: "committed" });
    expect(log.stats()).toMatchObject({ transactions: 1, rowsCommitted: 2 });

    const timed = log.submit(row("d-4"), null, 30);
    expect(await timed).toEqual({ status: "committed" });
    expect(log.stats()).toMatchObject({ transactions: 2, rowsCommitted: 3 });
  });

  it("leaves when its own wait is up, however long a row before it may wait", async () => {
    const log = await writer();
    const long = log.submit(row("d-5"), null, 60_000);
    expect(await settled(log.submit(row("d-6"), null, 10))).toBe(true);
    expect(await long).toEqual({ status: "committed" });
  });

  it("lingers for company under steady load, and starts at once after a pause", async () => {
    const log = await writer(200);
    await log.submit(row("l-1"));
    // Right after l-1: l-2 waits up to 200 ms, so l-3, a turn of the event loop later, joins its transaction.
    const second = log.submit(row("l-2"));
    await new Promise((r) => setImmediate(r));
    const third = log.submit(row("l-3"));
    await Promise.all([second, third]);
    expect(log.stats()).toMatchObject({ transactions: 2, rowsCommitted: 3 });
    // Longer than the linger since the last row: nothing to wait for.
    await new Promise((r) => setTimeout(r, 250));
    expect(await settled(log.submit(row("l-4")))).toBe(true);
    expect(log.stats()).toMatchObject({ transactions: 3, rowsCommitted: 4 });
  });

  /** Counts the pool's checkouts and the statements sent on the clients checked out (spies removed afterwards). */
  function watchPool() {
    const seen = { acquired: 0, statements: 0, pids: [] as number[] };
    const restore: Array<() => void> = [];
    const onAcquire = (c: pg.PoolClient) => {
      seen.acquired++;
      seen.pids.push((c as unknown as { processID: number }).processID);
      const original = c.query;
      (c as { query: unknown }).query = (...args: unknown[]) => {
        seen.statements++;
        return (original as (...a: unknown[]) => unknown).apply(c, args);
      };
      restore.push(() => ((c as { query: unknown }).query = original));
    };
    pool.on("acquire", onAcquire);
    cleanups.push(async () => {
      pool.off("acquire", onAcquire);
      for (const r of restore) r();
    });
    return seen;
  }

  const turn = () => new Promise((r) => setImmediate(r));

  it("a committed batch sends the next one before its own callers are answered, on the connection the writer keeps", async () => {
    const log = await writer();
    const seen = watchPool();
    const first = log.submit(row("h-1"));
    while (seen.statements === 0) await turn();
    const second = log.submit(row("h-2"));
    // Taking a connection from the pool per batch (a process.nextTick) sent the second batch only
    // after the first batch's callers had run: 1 here.
    const sentWhenFirstAnswered = await first.then(() => seen.statements);
    expect(sentWhenFirstAnswered).toBe(2);
    expect(await second).toEqual({ status: "committed" });
    expect(await log.submit(row("h-3"))).toEqual({ status: "committed" });
    expect(seen.acquired).toBe(1);
    expect(log.stats()).toMatchObject({ transactions: 3, rowsCommitted: 3 });
  });

  it("replaces its kept connection when that session ends between batches, even before the error arrives, and gives it back on close", async () => {
    const log = await writer();
    const seen = watchPool();
    expect(await log.submit(row("k-1"))).toEqual({ status: "committed" });
    expect(seen.pids).toHaveLength(1);
    await admin.query("select pg_terminate_backend($1)", [seen.pids[0]]);
    // Whether or not Postgres's FATAL has arrived yet (the writer's listener marks the session
    // broken), the row goes in on a new connection, not to the spool.
    expect(await log.submit(row("k-2"))).toEqual({ status: "committed" });
    expect(seen.acquired).toBe(2);
    expect(log.stats()).toMatchObject({ rowsCommitted: 2, rowsSpooled: 0 });
    await log.close();
    expect(pool.idleCount).toBe(pool.totalCount);
  });

  it("is written by drain (shutdown)", async () => {
    const log = await writer();
    const deferred = log.submit(row("d-5"), null, 60_000);
    await log.drain();
    expect(await deferred).toEqual({ status: "committed" });
    expect(await countRows("request_id = 'd-5'")).toBe(1);
  });
});
