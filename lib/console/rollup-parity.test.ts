import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { countDecisions, countDisagreementGroups, countServedMinutes } from "../dataplane/decision-log/counts";
import { maintainPartitions } from "../dataplane/decision-log/partitions";
import { insertDecisions, replayDecisions, type TDecisionRow } from "../dataplane/decision-log/rows";
import { loadRecordedTraffic } from "../replay/load-recorded";
import { flushBuckets } from "../dataplane/telemetry/metric-sync";
import { createMetricStore } from "../../router-core/metrics/store";
import { createHistogram, histogramQuantile, recordLatency } from "../../router-core/metrics/histogram";
import { getServedSeries } from "./traffic/get-served-series";
import { getShadowDisagreementGroups } from "./shadow/get-shadow-disagreement-groups";
import { getShadowView } from "./shadow/get-shadow-view";
import { RANGES, type TRangeKey } from "./ranges";

// Every range read model that counts decisions reads the rollup for whole periods (hours and
// 10-minute periods from decision_rollup_tier, minutes from decision_rollup): for the same decisions, written through the decision log's own insert and replay, each must equal the
// same model counted from the raw rows.

let db: TTestDatabase;
let prisma: PrismaClient;
let pool: pg.Pool;

const MINUTE = 60_000;
// Not on a minute: the ranges' ends fall inside minutes, whose rows are read raw.
const NOW = Math.floor(Date.now() / MINUTE) * MINUTE - 17 * MINUTE + 23_456;
const WEEK = 7 * 86_400_000;

/** A deterministic generator, so a failure can be reproduced. */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function makeRows(n: number): TDecisionRow[] {
  const rnd = lcg(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const rows: TDecisionRow[] = [];
  for (let i = 0; i < n; i++) {
    // Clustered near the ends of the 24 h and 7 d ranges as well as spread over the week.
    const edge = rnd();
    const at =
      edge < 0.1
        ? NOW - Math.floor(rnd() * 3 * MINUTE)
        : edge < 0.2
          ? NOW - 86_400_000 + Math.floor((rnd() - 0.5) * 4 * MINUTE)
          : edge < 0.3
            ? NOW - WEEK + Math.floor((rnd() - 0.5) * 4 * MINUTE)
            : NOW - Math.floor(rnd() * (WEEK + 3_600_000));
    const shadow = pick([null, true, false] as const);
    const selected = pick(["provider_A", "provider_B", "provider_C", null]);
    rows.push({
      id: crypto.randomUUID(),
      createdAt: at,
      operation: pick(["SEND_SMS", "SEND_EMAIL"]),
      region: pick(["EU", "NA"]),
      requestId: `r-${i}`,
      policyVersion: pick(["v1", "v2", null]),
      shadowVersion: shadow === null ? null : "v3",
      selectedProvider: selected,
      reasonCode: selected === null ? "no_eligible_provider" : pick(["share_weighted", "probe"]),
      shadowPick: shadow === null ? null : shadow ? selected : pick(["provider_A", "provider_B", "provider_C", null]),
      shadowAgrees: shadow,
      scoreMargin: null,
      stale: rnd() < 0.1,
      metricAgeMs: null,
      fallbackAction: null,
      degraded: rnd() < 0.05,
      body: "{}",
      durability: "sync",
      instanceId: "parity",
      apiKeyId: null,
      offeredProviders: selected,
      source: pick(["server", "server", "local", "fail_static"] as const),
    });
  }
  return rows;
}

const rows = makeRows(4_000);

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  prisma = createPrisma(db.url);
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  await maintainPartitions(pool, { now: NOW, daysAhead: 1, retentionDays: 0, from: NOW - WEEK - 2 * 86_400_000 });
  const client = await pool.connect();
  try {
    // Half through the group commit, half as spool replay; then everything again: a resent
    // batch (the idempotency check finds the rows) and a segment replayed twice add nothing.
    const half = rows.length / 2;
    for (let i = 0; i < half; i += 250)
      await insertDecisions(
        client,
        rows.slice(i, i + 250).map((row) => ({ row, stored: null })),
      );
    for (let i = half; i < rows.length; i += 250) await replayDecisions(client, rows.slice(i, i + 250));
    for (let i = 0; i < rows.length; i += 500) await replayDecisions(client, rows.slice(i, i + 500));
    await insertDecisions(
      client,
      rows.slice(0, 300).map((row) => ({ row, stored: null })),
    );
  } finally {
    client.release();
  }
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await prisma?.$disconnect();
  await db?.drop();
});

/** The served series as counted from the rows alone. */
async function rawServed(operation: string, region: string, range: TRangeKey) {
  const { ms, bucketSeconds } = RANGES[range];
  const { rows: r } = await pool.query<{ t: string; provider: string | null; n: number }>(
    `select (extract(epoch from date_bin($1::interval, created_at, timestamptz 'epoch')) * 1000)::bigint as t, selected_provider as provider, count(*)::int as n
       from decision where operation = $2 and region = $3 and created_at > $4 and created_at <= $5 group by 1, 2`,
    [`${bucketSeconds} seconds`, operation, region, new Date(NOW - ms), new Date(NOW)],
  );
  const points = new Map<number, { t: number; counts: Record<string, number>; served: number; unserved: number }>();
  for (const x of r) {
    const t = Number(x.t);
    const p = points.get(t) ?? { t, counts: {}, served: 0, unserved: 0 };
    if (x.provider === null) p.unserved += x.n;
    else {
      p.counts[x.provider] = x.n;
      p.served += x.n;
    }
    points.set(t, p);
  }
  return [...points.values()].sort((a, b) => a.t - b.t);
}

// The read models run twice: first with the inserted rows' cells still pending (decide's insert
// leaves them in decision_rollup_pending, the replay adds its own to decision_rollup), then after
// the roller moved them (decision_rollup_roll).
const CELL_KEY = "minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick";
/** The minute cells rolled up and pending, as the reads count them. */
const CELLS = `select ${CELL_KEY}, count from decision_rollup union all select ${CELL_KEY}, count from decision_rollup_pending`;

describe.each(["pending", "rolled"] as const)("range read models from decision_rollup equal the same models counted from the rows, cells %s", (state) => {
  beforeAll(async () => {
    const { rows: p } = await pool.query<{ n: number }>("select count(*)::int as n from decision_rollup_pending");
    if (state === "pending") expect(p[0]!.n).toBeGreaterThan(0);
    else {
      await pool.query("select decision_rollup_roll()");
      expect((await pool.query("select count(*)::int as n from decision_rollup_pending")).rows[0].n).toBe(0);
    }
  });

  it("the rollup holds each inserted row once, whatever was resent or replayed twice", async () => {
    const { rows: r } = await pool.query<{ raw: number; rolled: number; distinct_rows: number }>(
      `select (select count(*)::int from decision) as raw, (select sum(count)::int from (${CELLS}) c) as rolled,
              (select count(*)::int from (select distinct id from decision) d) as distinct_rows`,
    );
    expect(r[0]).toEqual({ raw: rows.length, rolled: rows.length, distinct_rows: rows.length });
    const fromRows = `select date_bin('1 minute', created_at, timestamptz 'epoch'), operation, region, coalesce(selected_provider, ''), reason_code,
        coalesce(policy_version, ''), case when shadow_agrees is null then 'none' when shadow_agrees then 'agree' else 'disagree' end,
        stale, degraded, source, coalesce(shadow_pick, ''), count(*)::bigint from decision group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11`;
    const rolled = `select ${CELL_KEY}, sum(count) from (${CELLS}) c group by ${CELL_KEY}`;
    const { rows: diff } = await pool.query(`(${fromRows} except ${rolled}) union all (${rolled} except ${fromRows})`);
    expect(diff).toEqual([]);
  });

  it.each(["24h", "7d"] as const)("served shares, %s", async (range) => {
    for (const [operation, region] of [
      ["SEND_SMS", "EU"],
      ["SEND_EMAIL", "NA"],
    ] as const) {
      const view = await getServedSeries(operation, region, range, NOW);
      const raw = await rawServed(operation, region, range);
      expect(raw.length).toBeGreaterThan(3);
      expect(view.points).toEqual(raw);
    }
  });

  it.each(["24h", "7d"] as const)("shadow agreement per bucket, %s", async (range) => {
    const { ms, bucketSeconds } = RANGES[range];
    const view = await getShadowView("SEND_SMS", range, NOW);
    const { rows: raw } = await pool.query<{ t: string; compared: number; agreed: number }>(
      `select (extract(epoch from date_bin($1::interval, created_at, timestamptz 'epoch')) * 1000)::bigint as t, count(*)::int as compared,
              (count(*) filter (where shadow_agrees))::int as agreed
         from decision where operation = 'SEND_SMS' and created_at >= $2 and created_at <= $3 and shadow_agrees is not null group by 1 order by 1`,
      [`${bucketSeconds} seconds`, new Date(NOW - ms), new Date(NOW)],
    );
    expect(raw.length).toBeGreaterThan(3);
    expect(view.series).toEqual(raw.map((r) => ({ t: Number(r.t), compared: r.compared, agreed: r.agreed, rate: r.agreed / r.compared })));
    expect(view.totals.compared).toBe(raw.reduce((s, r) => s + r.compared, 0));
  });

  it.each(["24h", "7d"] as const)("shadow disagreements by region and provider pair, with the last one's time, %s", async (range) => {
    const from = NOW - RANGES[range].ms;
    const groups = await getShadowDisagreementGroups("SEND_SMS", from, NOW);
    const { rows: raw } = await pool.query<{ region: string; actual: string | null; shadow: string | null; n: number; last_at: Date }>(
      `select region, selected_provider as actual, shadow_pick as shadow, count(*)::int as n, max(created_at) as last_at from decision
        where operation = 'SEND_SMS' and created_at >= $1 and created_at <= $2 and shadow_agrees = false
        group by 1, 2, 3 order by n desc, region, actual, shadow limit 50`,
      [new Date(from), new Date(NOW)],
    );
    expect(raw.length).toBeGreaterThan(5);
    expect(groups).toEqual(raw.map((r) => ({ region: r.region, actual: r.actual, shadow: r.shadow, count: r.n, lastAt: r.last_at.getTime() })));
  });

  // Ends on and off minute, 10-minute and hour boundaries, for buckets each tier nests in or not:
  // whatever mix of hour, 10-minute and minute cells and raw edges a range needs, the counts are the rows'.
  const HOUR = 3_600_000;
  const onHour = Math.floor(NOW / HOUR) * HOUR;
  const ranges: [string, number, number][] = [
    ["a week to now", NOW - WEEK, NOW],
    ["whole hours", onHour - 5 * 24 * HOUR, onHour - 2 * HOUR],
    ["10-minute ends", onHour - 3 * 24 * HOUR + 20 * MINUTE, onHour - 40 * MINUTE],
    ["minute ends", onHour - 2 * 24 * HOUR - 7 * MINUTE, onHour - 23 * MINUTE],
    ["within an hour", onHour - 2 * HOUR + 3 * MINUTE + 500, onHour - HOUR - 4 * MINUTE],
  ];
  it.each(ranges)("counts by bucket, region, provider and shadow over %s, for 1, 10, 30, 60 and 120-minute buckets", async (_, from, to) => {
    for (const bucketMinutes of [1, 10, 30, 60, 120]) {
      const q = { operation: "SEND_SMS", from, to, bounds: "[)", bucketMs: bucketMinutes * MINUTE, by: ["region", "provider", "shadow"] } as const;
      const counted = await countDecisions(pool, q);
      const { rows: raw } = await pool.query<{ t: string; region: string; provider: string | null; shadow: string; n: string }>(
        `select (extract(epoch from date_bin($1::interval, created_at, timestamptz 'epoch')) * 1000)::bigint as t, region, selected_provider as provider,
                case when shadow_agrees is null then 'none' when shadow_agrees then 'agree' else 'disagree' end as shadow, count(*)::bigint as n
           from decision where operation = 'SEND_SMS' and created_at >= $2 and created_at < $3 group by 1, 2, 3, 4`,
        [`${bucketMinutes} minutes`, new Date(from), new Date(to)],
      );
      const key = (c: { t: number; region?: string; provider?: string | null; shadow?: string }) => `${c.t}|${c.region}|${c.provider}|${c.shadow}`;
      const expected = raw.map((r) => ({ t: Number(r.t), region: r.region, provider: r.provider, shadow: r.shadow, n: Number(r.n) }));
      expect(raw.length).toBeGreaterThan(3);
      expect([...counted].sort((a, b) => key(a).localeCompare(key(b)))).toEqual(expected.sort((a, b) => key(a).localeCompare(key(b))));
    }
  });

  it.each(ranges)("disagreement groups and their last times over %s", async (name, from, to) => {
    const groups = await countDisagreementGroups(pool, { operation: "SEND_SMS", from, to, limit: 50 });
    const { rows: raw } = await pool.query<{ region: string; actual: string | null; shadow: string | null; n: number; last_at: Date }>(
      `select region, selected_provider as actual, shadow_pick as shadow, count(*)::int as n, max(created_at) as last_at from decision
        where operation = 'SEND_SMS' and created_at >= $1 and created_at <= $2 and shadow_agrees = false
        group by 1, 2, 3 order by n desc, region, actual, shadow limit 50`,
      [new Date(from), new Date(to)],
    );
    // Disagreements are a sixth of the rows: the hour's window may hold none, depending on where now falls in the hour.
    if (name !== "within an hour") expect(raw.length).toBeGreaterThan(0);
    expect(groups).toEqual(raw.map((r) => ({ region: r.region, actual: r.actual, shadow: r.shadow, count: r.n, lastAt: r.last_at.getTime() })));
  });

  it.each(ranges)("served counts per minute, region and provider (what-if's) over %s", async (_, from, to) => {
    const served = await countServedMinutes(pool, { operation: "SEND_SMS", from, to });
    const { rows: raw } = await pool.query<{ t: string; region: string; provider: string | null; n: number }>(
      `select (extract(epoch from date_bin('1 minute', created_at, timestamptz 'epoch')) * 1000)::bigint as t, region, selected_provider as provider, count(*)::int as n
         from decision where operation = 'SEND_SMS' and created_at >= $1 and created_at < $2 group by 1, 2, 3`,
      [new Date(from), new Date(to)],
    );
    expect(raw.length).toBeGreaterThan(3);
    const got = served.cells.flatMap((c) => c.counts.flatMap((n, m) => (n === 0 ? [] : [`${served.startMs + m * MINUTE}|${c.region}|${c.provider}|${n}`])));
    expect(got.sort()).toEqual(raw.map((r) => `${r.t}|${r.region}|${r.provider}|${r.n}`).sort());
    expect(served.minutes).toBe(Math.ceil((to - served.startMs) / MINUTE));
  });

  it("what-if's recorded traffic per minute, region and provider", async () => {
    const from = new Date(NOW - 6 * 3_600_000 - 7_000);
    const to = new Date(NOW - 11_000);
    const recorded = await loadRecordedTraffic(pool, "SEND_SMS", from, to);
    const { rows: raw } = await pool.query<{ minute_ms: string; region: string; selected_provider: string | null; n: number }>(
      `select (extract(epoch from date_trunc('minute', created_at)) * 1000)::bigint as minute_ms, region, selected_provider, count(*)::int as n
         from decision where operation = 'SEND_SMS' and created_at >= $1 and created_at < $2 group by 1, 2, 3`,
      [from, to],
    );
    const requests = recorded.requests.map((r) => r.map(() => 0));
    const selected = recorded.selected.map((r) => r.map(() => 0));
    for (const r of raw) {
      const m = (Number(r.minute_ms) - recorded.startMs) / MINUTE;
      requests[m]![recorded.regions.indexOf(r.region)]! += r.n;
      if (r.selected_provider) selected[m]![recorded.providers.indexOf(r.selected_provider)]! += r.n;
    }
    expect(raw.reduce((s, r) => s + r.n, 0)).toBeGreaterThan(50);
    expect(recorded.requests).toEqual(requests);
    expect(recorded.selected).toEqual(selected);
  });
});

// Metric buckets, not decisions: once.
describe("what-if's provider behaviour from the metric buckets", () => {
  it("what-if's recorded provider behaviour: each minute's calls, failures and p95 from the merged metric buckets", async () => {
    const minute = Math.floor((NOW - 2 * 3_600_000) / MINUTE) * MINUTE;
    const store = createMetricStore({ bucketSeconds: 60, retainMinutes: 24 * 60 });
    const key = { provider: "provider_A", operation: "SEND_SMS", region: "EU" };
    // Two flushes into one bucket (as two instances would), latencies spread over the histogram.
    const latencies = Array.from({ length: 400 }, (_, i) => 40 + ((i * 37) % 2_900));
    latencies.slice(0, 250).forEach((ms, i) => store.recordCall(key, { at: minute + 1_000 + i, latencyMs: ms, ok: i % 50 !== 0 }));
    await flushBuckets(pool, store.drainDeltas());
    latencies.slice(250).forEach((ms, i) => store.recordCall(key, { at: minute + 30_000 + i, latencyMs: ms, ok: true }));
    await flushBuckets(pool, store.drainDeltas());
    const expected = createHistogram();
    for (const ms of latencies) recordLatency(expected, ms);

    const recorded = await loadRecordedTraffic(pool, "SEND_SMS", new Date(minute - 5 * MINUTE), new Date(minute + 5 * MINUTE));
    const cell = recorded.cells[5]![recorded.providers.indexOf("provider_A")]![recorded.regions.indexOf("EU")];
    expect(cell).toEqual({ calls: 400, callFailures: 5, completions: 0, providerFailures: 0, p95Ms: histogramQuantile(expected, 0.95) });
  });
});
