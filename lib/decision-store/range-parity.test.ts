import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { startClickHouseShim, type ClickHouseShim } from "../../test/support/clickhouse-shim";
import { seededOutcomes } from "../../test/support/stored-outcomes";
import { getServedSeries } from "../console/traffic/get-served-series";
import { getShadowDisagreementGroups } from "../console/shadow/get-shadow-disagreement-groups";
import { getShadowView } from "../console/shadow/get-shadow-view";
import { RANGES, type TRangeKey } from "../console/ranges";
import { uuidV7At, type TDecisionRow, type TDecisionStoreHandle } from "../dataplane";
import { maintainPartitions } from "../dataplane/decision-log/partitions";
import { insertDecisions } from "../dataplane/decision-log/rows";
import { insertOutcomes } from "../dataplane/telemetry/outcomes";
import { loadRecordedTraffic } from "../replay/load-recorded";
import { consoleDecisionCounter, openClickHouseDecisionStore } from "./index";

// Parity of the range read models: served shares and shadow agreement for every range (rollup
// minutes plus raw edges for 24 h and 7 d, raw buckets for 15 min and 1 h), the shadow view's
// disagreement list and groups, and what-if's recorded traffic, for the same decisions logged by each store's own write path into a database
// of its own (each writes decision_rollup).

let pgDb: TTestDatabase;
let chDb: TTestDatabase;
let pgPool: pg.Pool;
let chPool: pg.Pool;
let dir: string;
let shim: ClickHouseShim;
let store: TDecisionStoreHandle;
const MINUTE = 60_000;
// Inside a minute, so every range has partial minutes at both ends.
const NOW = Math.floor(Date.now() / MINUTE) * MINUTE - 5 * MINUTE + 31_337;
const WEEK = 7 * 86_400_000;

function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function makeRows(n: number): TDecisionRow[] {
  const rnd = lcg(11);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  return Array.from({ length: n }, (_, i) => {
    const edge = rnd();
    // Dense in the last hour (the short ranges), clustered at range ends, spread over the week.
    const at =
      edge < 0.4
        ? NOW - Math.floor(rnd() * 3_600_000)
        : edge < 0.5
          ? NOW - 86_400_000 + Math.floor((rnd() - 0.5) * 3 * MINUTE)
          : edge < 0.6
            ? NOW - WEEK + Math.floor((rnd() - 0.5) * 3 * MINUTE)
            : NOW - Math.floor(rnd() * WEEK);
    const shadow = pick([null, true, false] as const);
    const selected = pick(["provider_A", "provider_B", null]);
    const id = uuidV7At(at);
    return {
      id,
      createdAt: at,
      operation: "SEND_SMS",
      region: pick(["EU", "NA"]),
      requestId: `range-${i}`,
      policyVersion: "v1",
      shadowVersion: shadow === null ? null : "v2",
      selectedProvider: selected,
      reasonCode: selected === null ? "no_eligible_provider" : "share_weighted",
      shadowPick: shadow === null ? null : "provider_B",
      shadowAgrees: shadow,
      ...PLAIN,
      body: JSON.stringify({ decisionId: id, at }),
      offeredProviders: selected,
    };
  });
}

/** What every fixture row shares: a served, fresh, synchronous decision of this test's instance. */
const PLAIN = {
  scoreMargin: null,
  stale: false,
  metricAgeMs: null,
  fallbackAction: null,
  degraded: false,
  durability: "sync",
  instanceId: "range",
  apiKeyId: null,
  source: "server",
} as const;

/** One SEND_EDGE decision at `at`: the edge fixture's groups below, apart from the main rows. */
function edgeRow(i: number, at: number, region: string, actual: string | null, shadow: string | null, agrees = false): TDecisionRow {
  const id = uuidV7At(at);
  return {
    id,
    createdAt: at,
    operation: EDGE_OP,
    region,
    requestId: `edge-${i}`,
    policyVersion: "v1",
    shadowVersion: "v2",
    selectedProvider: actual,
    reasonCode: actual === null ? "no_eligible_provider" : "share_weighted",
    shadowPick: shadow,
    shadowAgrees: agrees,
    ...PLAIN,
    body: JSON.stringify({ decisionId: id, at }),
    offeredProviders: actual,
  };
}

const EDGE_OP = "SEND_EDGE";
const SECOND = 1_000;
// A range with both ends inside a minute (11 s and 51 s past it), three hours long: hour cells
// in the middle, 10-minute and minute cells and a partial minute at each end.
const EDGE_FROM = Math.floor((NOW - 3 * 3_600_000) / MINUTE) * MINUTE + 11_087;
const EDGE_TO = Math.floor((NOW - 40 * SECOND) / MINUTE) * MINUTE + 51_337;

/**
 * Groups whose count or last time comes from a different part of the plan: only the partial
 * start minute (A), the partial end minute with rows on and just past `to` (B), a last row deep in
 * an hour cell, beside an agreeing one in the same minute (C), the start minute and a minute cell
 * near the start (D), a minute cell just before the end minute with no shadow pick (E), and many
 * rows across the range (F). Rows just outside either end must not count.
 */
function edgeRows(): TDecisionRow[] {
  const f = EDGE_FROM;
  const t = EDGE_TO;
  const spec: [number, string, string | null, string | null, boolean?][] = [
    [f - 1, "EU", "provider_A", "provider_B"],
    [f, "EU", "provider_A", "provider_B"],
    [f + 1 * SECOND, "EU", "provider_A", "provider_B"],
    [f + 5 * SECOND, "EU", "provider_A", "provider_B"],
    [t - 2 * 3_600_000, "EU", "provider_B", "provider_A"],
    [t - 3 * SECOND, "EU", "provider_B", "provider_A"],
    [t, "EU", "provider_B", "provider_A"],
    [t + 1, "EU", "provider_B", "provider_A"],
    [t + 5 * SECOND, "EU", "provider_B", "provider_A"],
    [f + 3 * 3_600_000 - 2 * 3_600_000, "NA", null, "provider_A"],
    [t - 2 * 3_600_000 + 17 * MINUTE + 12_345, "NA", null, "provider_A"],
    [t - 2 * 3_600_000 + 17 * MINUTE + 40_000, "NA", null, "provider_A", true],
    [f + 20 * SECOND, "NA", "provider_A", "provider_B"],
    [f + 7 * MINUTE + 3_210, "NA", "provider_A", "provider_B"],
    [t - 90 * SECOND, "EU", "provider_C", null],
    [t - 3 * 3_600_000 - 1, "EU", "provider_C", null],
    ...Array.from({ length: 40 }, (_, i): [number, string, string | null, string | null] => [
      f + 2 * MINUTE + i * 4 * MINUTE + 777,
      "EU",
      "provider_D",
      "provider_A",
    ]),
  ];
  return spec.map(([at, region, actual, shadow, agrees], i) => edgeRow(i, at, region, actual, shadow, agrees));
}

beforeAll(async () => {
  [pgDb, chDb] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  pgPool = new pg.Pool({ connectionString: pgDb.url, max: 3 });
  chPool = new pg.Pool({ connectionString: chDb.url, max: 3 });
  pgPool.on("error", () => {});
  chPool.on("error", () => {});
  dir = await mkdtemp(path.join(tmpdir(), "sy-range-parity-"));
  shim = await startClickHouseShim({ path: path.join(dir, "engine") });
  store = await openClickHouseDecisionStore(
    { kind: "clickhouse", url: shim.url, database: "default", fullDays: 30, keepDays: 365, routineSampleBasisPoints: 100 },
    chPool,
  );
  const rows = makeRows(3_000);
  await maintainPartitions(pgPool, { now: NOW, from: NOW - WEEK - 86_400_000, daysAhead: 2, retentionDays: 30 });
  const client = await pgPool.connect();
  try {
    for (let i = 0; i < rows.length; i += 500)
      await insertDecisions(
        client,
        rows.slice(i, i + 500).map((row) => ({ row, stored: null })),
      );
  } finally {
    client.release();
  }
  for (let i = 0; i < rows.length; i += 500) await store.log.write(rows.slice(i, i + 500).map((row) => ({ row, stored: null })));
  const edges = edgeRows();
  const edgeClient = await pgPool.connect();
  try {
    await insertDecisions(
      edgeClient,
      edges.map((row) => ({ row, stored: null })),
    );
  } finally {
    edgeClient.release();
  }
  await store.log.write(edges.map((row) => ({ row, stored: null })));
  // The same rows again in another chunk whose minutes were already counted (a batch that landed
  // but was spooled anyway): ClickHouse holds them twice until a merge, the rollup once.
  await store.log.replay(edges.map((row) => ({ ...row, counted: false })).reverse());
  // Outcomes through each store's own write path (ClickHouse mode keeps them beside the
  // decisions) and a breaker history (Postgres keeps it in both modes), for the disagreement list's columns.
  const outcomes = seededOutcomes(rows);
  for (let i = 0; i < outcomes.length; i += 500) {
    await insertOutcomes(pgPool, outcomes.slice(i, i + 500));
    await store.reads.outcomes!.insert(outcomes.slice(i, i + 500));
  }
  for (const p of [pgPool, chPool]) {
    await p.query(
      `insert into breaker_event (provider_key, region, from_state, to_state, reason, instance_id, at) values
         ('provider_A', 'EU', 'closed', 'open', 'test', 'range', $1), ('provider_A', 'EU', 'open', 'closed', 'test', 'range', $2)`,
      [new Date(NOW - 1_800_000), new Date(NOW - 600_000)],
    );
  }
}, 120_000);

afterAll(async () => {
  delete process.env.SWITCHYARD_DECISION_STORE;
  delete process.env.SWITCHYARD_CLICKHOUSE_URL;
  await store?.close();
  await shim?.close();
  await pgPool?.end();
  await chPool?.end();
  await Promise.all([pgDb?.drop(), chDb?.drop()]);
  await rm(dir, { recursive: true, force: true });
});

async function both<T>(read: () => Promise<T>): Promise<{ postgres: T; clickhouse: T }> {
  process.env.DATABASE_URL = pgDb.url;
  delete process.env.SWITCHYARD_DECISION_STORE;
  const postgres = await read();
  process.env.DATABASE_URL = chDb.url;
  process.env.SWITCHYARD_DECISION_STORE = "clickhouse";
  process.env.SWITCHYARD_CLICKHOUSE_URL = shim.url;
  const clickhouse = await read();
  delete process.env.SWITCHYARD_DECISION_STORE;
  return { postgres, clickhouse };
}

describe("range read models: Postgres and ClickHouse give the same answers", () => {
  it.each(Object.keys(RANGES) as TRangeKey[])("served shares and shadow agreement over %s", async (range) => {
    for (const region of ["EU", "NA"]) {
      const served = await both(() => getServedSeries("SEND_SMS", region, range, NOW));
      expect(served.clickhouse).toEqual(served.postgres);
    }
    const shadow = await both(async () => {
      const v = await getShadowView("SEND_SMS", range, NOW);
      return { series: v.series, totals: v.totals, disagreements: v.disagreements, groups: await getShadowDisagreementGroups("SEND_SMS", v.from, v.to) };
    });
    expect(shadow.clickhouse).toEqual(shadow.postgres);
    expect(shadow.postgres.totals.compared).toBeGreaterThan(0);
    expect(shadow.postgres.disagreements.length).toBeGreaterThan(0);
    // Not vacuous where the list is long enough: its outcome columns are filled for some rows.
    if (shadow.postgres.disagreements.length >= 20) {
      expect(shadow.postgres.disagreements.some((d) => d.completed !== null)).toBe(true);
      expect(shadow.postgres.disagreements.some((d) => d.callStatus !== null)).toBe(true);
    }
  });

  it("disagreement groups whose counts and last times come from the range's ends, hour cells and minute cells", async () => {
    const rows = edgeRows();
    const cases: [number, number][] = [
      [EDGE_FROM, EDGE_TO],
      // Ends on a minute: the first whole minute is read as rows, the last is empty.
      [Math.floor(EDGE_FROM / MINUTE) * MINUTE, Math.floor(EDGE_TO / MINUTE) * MINUTE],
      // Under two minutes: rows only.
      [EDGE_TO - 70 * SECOND, EDGE_TO],
    ];
    for (const [from, to] of cases) {
      const got = await both(() => getShadowDisagreementGroups(EDGE_OP, from, to));
      expect(got.clickhouse).toEqual(got.postgres);
      const expected = new Map<string, { region: string; actual: string | null; shadow: string | null; count: number; lastAt: number }>();
      for (const r of rows) {
        if (r.shadowAgrees !== false || r.createdAt < from || r.createdAt > to) continue;
        const key = `${r.region}|${r.selectedProvider}|${r.shadowPick}`;
        const g = expected.get(key) ?? { region: r.region, actual: r.selectedProvider, shadow: r.shadowPick, count: 0, lastAt: 0 };
        g.count += 1;
        g.lastAt = Math.max(g.lastAt, r.createdAt);
        expected.set(key, g);
      }
      const byKey = (g: { region: string; actual: string | null; shadow: string | null }) => `${g.region}|${g.actual}|${g.shadow}`;
      expect([...got.clickhouse].sort((a, b) => byKey(a).localeCompare(byKey(b)))).toEqual(
        [...expected.values()].sort((a, b) => byKey(a).localeCompare(byKey(b))),
      );
      expect(got.clickhouse.map((g) => g.count)).toEqual(got.clickhouse.map((g) => g.count).sort((a, b) => b - a));
    }
    // Every part of the plan decided some group in the full range: A from the start minute, B on `to`, C inside an hour cell.
    const full = (await both(() => getShadowDisagreementGroups(EDGE_OP, EDGE_FROM, EDGE_TO))).clickhouse;
    expect(full.find((g) => g.actual === "provider_A" && g.region === "EU")).toMatchObject({ count: 3, lastAt: EDGE_FROM + 5 * SECOND });
    expect(full.find((g) => g.actual === "provider_B")).toMatchObject({ count: 3, lastAt: EDGE_TO });
    expect(full.find((g) => g.actual === null)).toMatchObject({ count: 2, lastAt: EDGE_TO - 2 * 3_600_000 + 17 * MINUTE + 12_345 });
    expect(full).toHaveLength(6);
  });

  it("what-if's recorded traffic over 6 hours and a week", async () => {
    for (const from of [NOW - 6 * 3_600_000, NOW - WEEK]) {
      const inPostgres = await loadRecordedTraffic(pgPool, "SEND_SMS", new Date(from), new Date(NOW));
      const inClickHouse = await loadRecordedTraffic(
        chPool,
        "SEND_SMS",
        new Date(from),
        new Date(NOW),
        [],
        consoleDecisionCounter({ SWITCHYARD_DECISION_STORE: "clickhouse", SWITCHYARD_CLICKHOUSE_URL: shim.url }),
      );
      // Providers are listed as the counts first name them, which is not an order either store promises: compare by name.
      const byProvider = (t: typeof inPostgres) =>
        Object.fromEntries(t.providers.map((p, i) => [p, { selected: t.selected.map((m) => m[i]), cells: t.cells.map((m) => m[i]) }]));
      expect(new Set(inClickHouse.providers)).toEqual(new Set(inPostgres.providers));
      expect(byProvider(inClickHouse)).toEqual(byProvider(inPostgres));
      expect({ ...inClickHouse, providers: null, selected: null, cells: null }).toEqual({ ...inPostgres, providers: null, selected: null, cells: null });
    }
  });
});
