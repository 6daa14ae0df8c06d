import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createClient, type ClickHouseClient } from "@clickhouse/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "../../../test/support/database";
import { startClickHouseShim, type ClickHouseShim } from "../../../test/support/clickhouse-shim";
import { uuidV7At } from "../../dataplane/decision-id";
import type { TDecisionRow } from "../../dataplane/decision-log/rows";
import type { TDecisionStoreHandle } from "../../dataplane/decision-log/store";
import { isConnectionError, type TPendingOutcome } from "../../dataplane/telemetry/outcomes";
import { openClickHouseDecisionStore } from "../index";

// The ClickHouse store on a real engine (chdb behind ClickHouse's HTTP interface, through the
// official client): cross-instance idempotency without an advisory lock, replay without
// duplicates or double counting, and the retention tiers.

let db: TTestDatabase;
let pool: pg.Pool;
let dir: string;
let shim: ClickHouseShim;
let ch: ClickHouseClient;
let stores: TDecisionStoreHandle[];

const settings = (url: string) => ({ kind: "clickhouse" as const, url, database: "default", fullDays: 30, keepDays: 365, routineSampleBasisPoints: 0 });

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 6 });
  // The database is dropped with force at the end: a client still closing then is told so, which is not a failure.
  pool.on("error", () => {});
  dir = await mkdtemp(path.join(tmpdir(), "sy-ch-"));
  shim = await startClickHouseShim({ path: path.join(dir, "engine") });
  ch = createClient({ url: shim.url });
  // Two instances: each its own store on the same ClickHouse and Postgres.
  stores = [await openClickHouseDecisionStore(settings(shim.url), pool), await openClickHouseDecisionStore(settings(shim.url), pool)];
});

afterAll(async () => {
  for (const s of stores ?? []) await s.close();
  await ch?.close();
  await shim?.close();
  await pool?.end();
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
});

let seq = 0;
function row(over: Partial<TDecisionRow> = {}): TDecisionRow {
  const createdAt = over.createdAt ?? Date.now();
  const id = uuidV7At(createdAt);
  return {
    id,
    createdAt,
    operation: "SEND_SMS",
    region: "EU",
    requestId: `req-${seq++}`,
    policyVersion: "v1",
    shadowVersion: null,
    selectedProvider: "provider_A",
    reasonCode: "share_weighted",
    shadowPick: null,
    shadowAgrees: null,
    scoreMargin: 0.2,
    stale: false,
    metricAgeMs: 1500,
    fallbackAction: null,
    degraded: false,
    body: JSON.stringify({ decisionId: id, at: createdAt }),
    durability: "sync",
    instanceId: "test",
    apiKeyId: "env:SWITCHYARD_API_KEY",
    offeredProviders: "provider_A,provider_B",
    source: "server",
    ...over,
  };
}

async function count(where: string, params: Record<string, unknown> = {}): Promise<number> {
  const rs = await ch.query({ query: `SELECT count() AS n FROM decision WHERE ${where}`, query_params: params, format: "JSONEachRow" });
  return Number((await rs.json<{ n: string }>())[0]!.n);
}

async function rolled(operation: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>("select coalesce(sum(count), 0) as n from decision_rollup where operation = $1", [operation]);
  return Number(rows[0]!.n);
}

describe("ClickHouse decision store", () => {
  it("writes a batch once and counts it in decision_rollup in the claim's transaction", async () => {
    const batch = [row({ operation: "OP_BATCH" }), row({ operation: "OP_BATCH" }), row({ operation: "OP_BATCH", region: "NA" })];
    const existing = await stores[0]!.log.write(batch.map((r) => ({ row: r, stored: null })));
    expect(existing.size).toBe(0);
    expect(await count("operation = 'OP_BATCH'")).toBe(3);
    expect(await rolled("OP_BATCH")).toBe(3);
    const got = await stores[0]!.reads.get(batch[2]!.id);
    expect(got).toMatchObject({ id: batch[2]!.id, region: "NA", at: batch[2]!.createdAt, record: batch[2]!.body, offeredProviders: "provider_A,provider_B" });
  });

  it("gives one decision per key when two instances decide the same request at once", async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `dup-${i}`);
    const a = keys.map((k) => row({ operation: "OP_DUP", requestId: k, instanceId: "a" }));
    const b = keys.map((k) => row({ operation: "OP_DUP", requestId: k, instanceId: "b" }));
    const [ea, eb] = await Promise.all([
      stores[0]!.log.write(a.map((r) => ({ row: r, stored: null }))),
      stores[1]!.log.write(b.map((r) => ({ row: r, stored: null }))),
    ]);
    expect(ea.size + eb.size).toBe(keys.length);
    expect(await count("operation = 'OP_DUP'")).toBe(keys.length);
    expect(await rolled("OP_DUP")).toBe(keys.length);
    // Each loser is answered with the winner's own record.
    for (let i = 0; i < keys.length; i++) {
      const lost = ea.get(a[i]!.id) ?? eb.get(b[i]!.id);
      const winner = ea.has(a[i]!.id) ? b[i]! : a[i]!;
      expect(lost).toEqual({ id: winner.id, body: winner.body });
    }
    // The same key from another API key is another request.
    const other = row({ operation: "OP_DUP", requestId: keys[0]!, apiKeyId: "other-key" });
    expect((await stores[0]!.log.write([{ row: other, stored: null }])).size).toBe(0);
  });

  it("sends inserts gzipped when asked (SWITCHYARD_CLICKHOUSE_COMPRESS), stored the same", async () => {
    const gz = await openClickHouseDecisionStore({ ...settings(shim.url), compressInserts: true }, pool);
    try {
      const batch = [row({ operation: "OP_GZIP" }), row({ operation: "OP_GZIP", body: JSON.stringify({ text: 'é ü 東京 \n "q"' }) })];
      const gzipped = shim.gzippedBodies;
      expect((await gz.log.write(batch.map((r) => ({ row: r, stored: null })))).size).toBe(0);
      expect(shim.gzippedBodies).toBe(gzipped + 1);
      expect((await gz.reads.get(batch[1]!.id))?.record).toBe(batch[1]!.body);
      expect(await count("operation = 'OP_GZIP'")).toBe(2);
    } finally {
      await gz.close();
    }
  });

  it("replays a spooled chunk twice without a second row or a second count", async () => {
    const chunk = Array.from({ length: 25 }, () => row({ operation: "OP_REPLAY" }));
    await stores[0]!.log.replay(chunk);
    await stores[1]!.log.replay(chunk);
    expect(await count("operation = 'OP_REPLAY'")).toBe(25);
    expect(await rolled("OP_REPLAY")).toBe(25);
    // Rows whose minutes were counted before the ClickHouse insert failed are not counted again.
    const counted = Array.from({ length: 5 }, () => row({ operation: "OP_REPLAY", counted: false }));
    await stores[0]!.log.replay(counted);
    expect(await count("operation = 'OP_REPLAY'")).toBe(30);
    expect(await rolled("OP_REPLAY")).toBe(25);
  });

  it("spools (an error without severity) while ClickHouse is away, and the probe says when it is back", async () => {
    await shim.stop();
    const r = row({ operation: "OP_OUTAGE" });
    const err: unknown = await stores[0]!.log.write([{ row: r, stored: null }]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as { severity?: string }).severity).toBeUndefined();
    // Its minute is counted with the claim: the spooled row must not be counted again.
    expect(r.counted).toBe(false);
    await expect(stores[0]!.log.probe()).rejects.toThrow();
    await shim.start();
    await stores[0]!.log.probe();
    await stores[0]!.log.replay([r]);
    expect(await count("operation = 'OP_OUTAGE'")).toBe(1);
    expect(await rolled("OP_OUTAGE")).toBe(1);
  });

  it("thins routine decisions after the full-record days and keeps every non-routine one", async () => {
    const old = Date.now() - 40 * 86_400_000;
    const routine = Array.from({ length: 20 }, (_, i) => row({ operation: "OP_TTL", createdAt: old + i }));
    const kept = [
      row({ operation: "OP_TTL", createdAt: old, stale: true }),
      row({ operation: "OP_TTL", createdAt: old, degraded: true }),
      row({ operation: "OP_TTL", createdAt: old, reasonCode: "pinned" }),
      row({ operation: "OP_TTL", createdAt: old, fallbackAction: "degraded_message", selectedProvider: null, reasonCode: "no_eligible_provider" }),
      row({ operation: "OP_TTL", createdAt: old, shadowAgrees: false, shadowPick: "provider_B", shadowVersion: "v2" }),
    ];
    const ancient = row({ operation: "OP_TTL", createdAt: Date.now() - 400 * 86_400_000, stale: true });
    const fresh = row({ operation: "OP_TTL" });
    await stores[0]!.log.replay([...routine, ...kept, ancient, fresh]);
    // ClickHouse applies TTL as it writes a part, and again in merges.
    await ch.command({ query: "OPTIMIZE TABLE decision FINAL" });
    const ids = async () =>
      (
        await (
          await ch.query({ query: "SELECT id FROM decision WHERE operation = 'OP_TTL' ORDER BY toString(id)", format: "JSONEachRow" })
        ).json<{ id: string }>()
      ).map((r) => r.id);
    expect(await ids()).toEqual([...kept, fresh].map((r) => r.id).sort());
  });

  it("thins outcomes after the full-record days with the decisions' sample and keeps every failure", async () => {
    const outcomes = stores[0]!.reads.outcomes!;
    const at = (daysAgo: number) => Date.now() - daysAgo * 86_400_000;
    const decision = { operation: "OP_TTL", region: "EU", selected: "provider_A", offered: ["provider_A"] };
    const pending = (daysAgo: number, outcome: TPendingOutcome["outcome"]): TPendingOutcome => ({
      id: uuidV7At(at(daysAgo)),
      outcome,
      receivedAt: at(daysAgo),
      decision,
      applied: true,
    });
    const decisionId = (daysAgo: number) => uuidV7At(at(daysAgo) - 1_000);
    const success = (d: number) =>
      pending(d, { type: "provider_call", decisionId: decisionId(d), provider: "provider_A", status: "success", latencyMs: 90, retryCount: 0 });
    const failedCall = (d: number) =>
      pending(d, {
        type: "provider_call",
        decisionId: decisionId(d),
        provider: "provider_A",
        status: "failure",
        errorClass: "timeout",
        latencyMs: 90,
        retryCount: 0,
      });
    const completed = (d: number) => pending(d, { type: "business", decisionId: decisionId(d), completed: true, withinSla: true });
    const failedFlow = (d: number) =>
      pending(d, { type: "business", decisionId: decisionId(d), completed: false, failureStage: "provider_call", withinSla: false });
    const thinned = [success(40), completed(41)];
    const kept = [failedCall(40), failedFlow(42), success(2), completed(3)];
    const ancient = failedCall(400);
    await outcomes.insert([...thinned, ...kept, ancient]);
    await ch.command({ query: "OPTIMIZE TABLE outcome FINAL" });
    const rs = await ch.query({ query: "SELECT outcome_id FROM outcome WHERE operation = 'OP_TTL'", format: "JSONEachRow" });
    const ids = (await rs.json<{ outcome_id: string }>()).map((r) => r.outcome_id).sort();
    expect(ids).toEqual(kept.map((o) => o.id).sort());
  });

  it("an outcome batch during a ClickHouse outage fails as an outage (the outcome spool takes it), and its resend is stored once", async () => {
    const outcomes = stores[0]!.reads.outcomes!;
    const decisionId = uuidV7At(Date.now() - 5_000);
    const decision = { operation: "OP_OUTCOME", region: "EU", selected: "provider_A", offered: ["provider_A"] };
    const batch: TPendingOutcome[] = [0, 1].map((i) => ({
      id: uuidV7At(Date.now() + i),
      outcome: { type: "provider_call", decisionId, provider: "provider_A", status: "success", latencyMs: 50, retryCount: i },
      receivedAt: Date.now(),
      decision,
      applied: true,
    }));
    await shim.stop();
    const err = await outcomes.insert(batch).then(
      () => null,
      (e: unknown) => e,
    );
    await shim.start();
    expect(err).not.toBeNull();
    expect(isConnectionError(err)).toBe(true);
    await outcomes.insert(batch);
    await outcomes.insert(batch);
    expect((await outcomes.counts([decisionId])).get(decisionId)).toEqual({ calls: { provider_A: 2 }, business: 0 });
  });
});
