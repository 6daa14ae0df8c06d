import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { startClickHouseShim, type ClickHouseShim } from "../../test/support/clickhouse-shim";
import { startStandaloneDataPlane } from "../../test/support/standalone-dataplane";
import { seededOutcomes } from "../../test/support/stored-outcomes";
import { getDecision } from "../console/decisions/get-decision";
import { listDecisions, type TDecisionPage } from "../console/decisions/list-decisions";
import type { TDecisionFilters } from "../console/decisions/decision-filters";
import { uuidV7At } from "../dataplane/decision-id";
import { findDecisions, readDecisionRecord } from "../dataplane/decision-log/lookup";
import { maintainPartitions } from "../dataplane/decision-log/partitions";
import { insertDecisions, type TDecisionRow } from "../dataplane/decision-log/rows";
import type { TDecisionStoreHandle } from "../dataplane/decision-log/store";
import { insertOutcomes, type TPendingOutcome } from "../dataplane/telemetry/outcomes";
import { dataPlaneSettings } from "../dataplane/settings";
import { openClickHouseDecisionStore } from "./index";

// Parity: the same decisions and outcomes, logged through each store's own write path (the
// decision table's batch insert and the outcome tables'; ClickHouse's claim + insert and its
// outcome insert), give identical answers from every read model that reads decision rows or their
// outcomes: the console's listing (each filter, every page) and drilldown, and the data plane's
// lookups (outcome validation with its stored counts, GET /decisions/:id).

let db: TTestDatabase;
let pool: pg.Pool;
let dir: string;
let shim: ClickHouseShim;
let store: TDecisionStoreHandle;
let rows: TDecisionRow[];
let outcomes: TPendingOutcome[];
const env = { ...process.env };
const NOW = Date.now();

/** A deterministic generator, so a failure can be reproduced. */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Decisions over the last two hours, varied in every column the listing filters on, each with a real decide answer as its record. */
function makeRows(template: Record<string, unknown>, n: number): TDecisionRow[] {
  const rnd = lcg(37);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const out: TDecisionRow[] = [];
  for (let i = 0; i < n; i++) {
    // Some share a millisecond, so the keyset's id tie-break is exercised.
    const at = i % 7 === 3 ? out[i - 1]!.createdAt : NOW - Math.floor(rnd() * 2 * 3_600_000);
    const id = uuidV7At(at);
    const selected = pick(["provider_A", "provider_B", "provider_C", null]);
    const reasonCode = selected === null ? "no_eligible_provider" : pick(["share_weighted", "pinned", "least_bad_guardrail"]);
    const stale = rnd() < 0.2;
    const shadow = pick([null, true, false] as const);
    const operation = pick(["SEND_SMS", "SEND_EMAIL"]);
    const region = pick(["EU", "NA"]);
    const requestId = `parity-${i}`;
    const body = JSON.stringify({ ...template, decisionId: id, id, at, operation, region, requestId, selected, reasonCode, stale });
    out.push({
      id,
      createdAt: at,
      operation,
      region,
      requestId,
      policyVersion: pick(["v1", "v2"]),
      shadowVersion: shadow === null ? null : "v3",
      selectedProvider: selected,
      reasonCode,
      shadowPick: shadow === null ? null : "provider_B",
      shadowAgrees: shadow,
      scoreMargin: selected === null ? null : Math.round(rnd() * 1000) / 1000,
      stale,
      metricAgeMs: stale ? 120_000 : 900,
      fallbackAction: selected === null ? "degraded_message" : null,
      degraded: rnd() < 0.1,
      body,
      durability: "sync",
      instanceId: pick(["i-1", "i-2"]),
      apiKeyId: pick(["env:SWITCHYARD_API_KEY", null]),
      offeredProviders: selected,
      source: "server",
    });
  }
  return out;
}

function readFromPostgres(): void {
  delete process.env.SWITCHYARD_DECISION_STORE;
  delete process.env.SWITCHYARD_CLICKHOUSE_URL;
}

function readFromClickHouse(): void {
  process.env.SWITCHYARD_DECISION_STORE = "clickhouse";
  process.env.SWITCHYARD_CLICKHOUSE_URL = shim.url;
}

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  // The database is dropped with force at the end: a client still closing then is told so, which is not a failure.
  pool.on("error", () => {});
  dir = await mkdtemp(path.join(tmpdir(), "sy-parity-"));
  // A real decide answer is the template of every record.
  const dp = await startStandaloneDataPlane({ databaseUrl: db.url, settings: { ...dataPlaneSettings({}, process.cwd()), spoolDir: path.join(dir, "spool") } });
  const res = await fetch(`${dp.url}/api/v1/decide`, { method: "POST", body: JSON.stringify({ operation: "SEND_SMS", region: "EU", requestId: "template" }) });
  const template = (await res.json()) as Record<string, unknown>;
  await dp.close();
  await pool.query("delete from decision");
  await pool.query("delete from decision_rollup");

  rows = makeRows(template, 400);
  await maintainPartitions(pool, { now: NOW, from: NOW - 3 * 3_600_000, daysAhead: 3, retentionDays: 30 });
  const client = await pool.connect();
  try {
    for (let i = 0; i < rows.length; i += 100)
      await insertDecisions(
        client,
        rows.slice(i, i + 100).map((row) => ({ row, stored: null })),
      );
  } finally {
    client.release();
  }
  shim = await startClickHouseShim({ path: path.join(dir, "engine") });
  store = await openClickHouseDecisionStore(
    { kind: "clickhouse", url: shim.url, database: "default", fullDays: 30, keepDays: 365, routineSampleBasisPoints: 100 },
    pool,
  );
  for (let i = 0; i < rows.length; i += 100) await store.log.write(rows.slice(i, i + 100).map((row) => ({ row, stored: null })));
  // Decisions that landed but were spooled anyway: ClickHouse holds them twice until a merge,
  // and every filtered listing must still show each once (filters run before FINAL's merge).
  await store.log.replay(rows.slice(0, 150).map((row) => ({ ...row, counted: false })));

  // Outcomes through each store's own write path (ClickHouse mode keeps them beside the decisions).
  outcomes = seededOutcomes(rows);
  for (let i = 0; i < outcomes.length; i += 100) {
    await insertOutcomes(pool, outcomes.slice(i, i + 100));
    await store.reads.outcomes!.insert(outcomes.slice(i, i + 100));
  }
  // A chunk sent again (a retry after a lost answer, a spool segment replayed) stores nothing twice.
  await store.reads.outcomes!.insert(outcomes.slice(0, 100));
}, 120_000);

afterAll(async () => {
  process.env.SWITCHYARD_DECISION_STORE = env.SWITCHYARD_DECISION_STORE;
  readFromPostgres();
  await store?.close();
  await shim?.close();
  await pool?.end();
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
});

/** Every page of a listing, following its cursor. */
async function allPages(f: TDecisionFilters, limit: number): Promise<TDecisionPage[]> {
  const pages: TDecisionPage[] = [];
  let after: string | undefined;
  do {
    const page = await listDecisions({ ...f, after }, limit, NOW);
    pages.push(page);
    after = page.next ?? undefined;
  } while (after && pages.length < 100);
  return pages;
}

async function both<T>(read: () => Promise<T>): Promise<{ postgres: T; clickhouse: T }> {
  readFromPostgres();
  const postgres = await read();
  readFromClickHouse();
  const clickhouse = await read();
  readFromPostgres();
  return { postgres, clickhouse };
}

const iso = (ms: number) => new Date(ms).toISOString();

const FILTERS: TDecisionFilters[] = [
  {},
  { from: iso(NOW - 2 * 3_600_000 - 1), to: iso(NOW) },
  { from: iso(NOW - 2 * 3_600_000), operation: "SEND_SMS", region: "EU" },
  { from: iso(NOW - 2 * 3_600_000), provider: "provider_B" },
  { from: iso(NOW - 2 * 3_600_000), reason: "pinned", stale: "true" },
  { from: iso(NOW - 2 * 3_600_000), stale: "false", policy: "v2" },
  { from: iso(NOW - 2 * 3_600_000), outcome: "completed" },
  { from: iso(NOW - 2 * 3_600_000), outcome: "failed", operation: "SEND_EMAIL" },
  { from: iso(NOW - 2 * 3_600_000), outcome: "pending" },
  { from: iso(NOW - 2 * 3_600_000), reason: "no_such_reason" },
];

describe("decision read models: Postgres and ClickHouse give the same answers", () => {
  it.each(FILTERS.map((f) => [JSON.stringify(f), f] as const))("the listing, every page, for %s", async (_, f) => {
    const { postgres, clickhouse } = await both(() => allPages(f, 13));
    expect(clickhouse).toEqual(postgres);
    // Not vacuous: the filters that match something return rows, every page but the last full.
    if (f.reason !== "no_such_reason") expect(postgres.flatMap((p) => p.rows).length).toBeGreaterThan(0);
  });

  it("the drilldown, with its outcomes and their reporters, for a sample of decisions and an unknown id", async () => {
    const ids = [...rows.filter((_, i) => i % 37 === 0 || i % 37 === 3).map((r) => r.id), uuidV7At(NOW)];
    let calls = 0;
    let business = 0;
    for (const id of ids) {
      const near = rows.find((r) => r.id === id)?.createdAt;
      const { postgres, clickhouse } = await both(() => getDecision(id, near));
      expect(clickhouse).toEqual(postgres);
      calls += postgres?.calls.length ?? 0;
      business += postgres?.outcomes.length ?? 0;
    }
    // Not vacuous: the sample has both outcome kinds, reported by a key and by none.
    expect(calls).toBeGreaterThan(0);
    expect(business).toBeGreaterThan(0);
    readFromPostgres();
    expect((await getDecision(ids[0]!))?.record.id).toBe(ids[0]);
  });

  it("the data plane's lookups: outcome validation and GET /decisions/:id", async () => {
    const ids = [...rows.filter((_, i) => i % 5 === 0).map((r) => r.id), uuidV7At(NOW - 1000), "not-a-uuid"];
    const inPostgres = await findDecisions(pool, ids);
    const inClickHouse = await findDecisions(pool, ids, store.reads);
    expect(inClickHouse).toEqual(inPostgres);
    expect(inPostgres.size).toBe(80);
    expect([...inPostgres.values()].some((d) => Object.keys(d.stored.calls).length > 0 && d.stored.business > 0)).toBe(true);
    for (const id of ids.slice(0, 10)) expect(await readDecisionRecord(pool, id, store.reads)).toEqual(await readDecisionRecord(pool, id));
  });

  it("the stored outcome counts the bound is checked against, and a resent chunk counted once", async () => {
    const ids = rows.map((r) => r.id);
    const counts = await store.reads.outcomes!.counts(ids);
    const expected = new Map<string, { calls: Record<string, number>; business: number }>();
    for (const o of outcomes) {
      const c = expected.get(o.outcome.decisionId) ?? { calls: {}, business: 0 };
      if (o.outcome.type === "provider_call") c.calls[o.outcome.provider] = (c.calls[o.outcome.provider] ?? 0) + 1;
      else c.business++;
      expected.set(o.outcome.decisionId, c);
    }
    expect(counts).toEqual(expected);
  });

  // Last: it adds an outcome that only ClickHouse holds.
  it("ClickHouse mode reads outcomes from ClickHouse, not from Postgres's outcome tables", async () => {
    const r = rows.find((x) => x.selectedProvider !== null)!;
    const receivedAt = r.createdAt + 5_000;
    const decision = { operation: r.operation, region: r.region, selected: r.selectedProvider, offered: [r.selectedProvider!] };
    const only: TPendingOutcome = {
      id: uuidV7At(receivedAt),
      outcome: { type: "business", decisionId: r.id, completed: true, withinSla: true },
      receivedAt,
      decision,
      applied: true,
    };
    const before = await both(() => getDecision(r.id, r.createdAt));
    await store.reads.outcomes!.insert([only]);
    const after = await both(() => getDecision(r.id, r.createdAt));
    expect(after.postgres).toEqual(before.postgres);
    expect(after.clickhouse!.outcomes.length).toBe(before.clickhouse!.outcomes.length + 1);
    expect((await findDecisions(pool, [r.id], store.reads)).get(r.id)!.stored.business).toBe(before.clickhouse!.outcomes.length + 1);
  });
});
