import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "@/test/support/database";
import { maintainPartitions } from "./partitions";
import { addRollupDeltas, rollupDeltasOf } from "./rollup";
import { insertDecisions, replayDecisions, type TDecisionRow } from "./rows";

// decision_rollup_tier (10-minute and hour periods) and decision_served_minutes (per hour, region
// and provider, a count per minute) are kept by triggers on decision_rollup, and by the roller
// (decision_rollup_roll) for the cells decide's insert leaves pending: after any writer's statement
// and a roll, each must equal the minute cells summed its way, with no empty cells.

let db: TTestDatabase;
let pool: pg.Pool;
const HOUR = 3_600_000;
// Two minutes before an hour starts, so the rows fall into two hours and several 10-minute periods.
const NOW = Math.floor(Date.now() / HOUR) * HOUR - 2 * 60_000 + 1_234;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  // The database is dropped at the end with its connections terminated; that is no test error.
  pool.on("error", () => {});
  await maintainPartitions(pool, { now: NOW, daysAhead: 1, retentionDays: 0, from: NOW - 2 * 86_400_000 });
});
beforeEach(async () => {
  await pool.query("truncate decision, decision_rollup, decision_rollup_pending");
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

function row(i: number, over: Partial<TDecisionRow> = {}): TDecisionRow {
  return {
    id: crypto.randomUUID(),
    createdAt: NOW - 70 * 60_000 + (i % 9) * 11 * 60_000 + (i % 7) * 1_000,
    operation: i % 5 === 0 ? "SEND_EMAIL" : "SEND_SMS",
    region: i % 2 === 0 ? "EU" : "NA",
    requestId: `r-${crypto.randomUUID()}`,
    policyVersion: "v1",
    shadowVersion: null,
    selectedProvider: i % 4 === 0 ? null : i % 3 === 0 ? "provider_B" : "provider_A",
    reasonCode: "share_weighted",
    shadowPick: i % 5 === 0 ? "provider_B" : null,
    shadowAgrees: i % 5 === 0 ? false : null,
    scoreMargin: null,
    stale: i % 11 === 0,
    metricAgeMs: null,
    fallbackAction: null,
    degraded: false,
    body: "{}",
    durability: "sync",
    instanceId: "rollup-tier-test",
    source: i % 6 === 0 ? "local" : "server",
    ...over,
  };
}

const DIMS = "operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick";

/** After a roll: rows of the tier that differ from the minute cells summed per period, and the tier's empty cells. */
async function tierMismatch(): Promise<{ diff: unknown[]; empty: number; cells: number }> {
  await pool.query("select decision_rollup_roll()");
  const expected = `select w.m as minutes, date_bin(w.m * interval '1 minute', minute, timestamptz 'epoch') as start, ${DIMS}, sum(count)::bigint as count
      from decision_rollup cross join (values (10), (60)) as w(m) group by 1, 2, ${DIMS}`;
  const actual = `select minutes, start, ${DIMS}, count from decision_rollup_tier`;
  const { rows: diff } = await pool.query(`(${expected} except ${actual}) union all (${actual} except ${expected})`);
  // The served minutes unnested to (minute, region, provider) counts, and each row's total.
  const perMinute = `select operation, minute, region, selected_provider, sum(count)::bigint as n from decision_rollup group by 1, 2, 3, 4`;
  const served = `select s.operation, s.hour + (m.i - 1) * interval '1 minute', s.region, s.selected_provider, m.n::bigint
      from decision_served_minutes s cross join lateral unnest(s.minutes) with ordinality as m(n, i) where m.n <> 0`;
  const { rows: servedDiff } = await pool.query(`(${perMinute} except ${served}) union all (${served} except ${perMinute})`);
  const { rows } = await pool.query<{ empty: number; cells: number }>(
    `select ((select count(*) from decision_rollup_tier where count = 0) + (select count(*) from decision_served_minutes
              where count = 0 or count <> (select sum(n) from unnest(minutes) as n) or cardinality(minutes) <> 60))::int as empty,
            (select count(*) from decision_rollup_tier)::int as cells`,
  );
  return { diff: [...diff, ...servedDiff], ...rows[0]! };
}

async function withClient<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await fn(client);
  } finally {
    client.release();
  }
}

describe("decision_rollup_tier follows decision_rollup", () => {
  it("after the insert, the replay, a resent batch, a segment replayed twice and addRollupDeltas", async () => {
    const rows = Array.from({ length: 90 }, (_, i) => row(i));
    await withClient(async (client) => {
      await insertDecisions(
        client,
        rows.slice(0, 45).map((r) => ({ row: r, stored: null })),
      );
      await replayDecisions(client, rows.slice(45));
      await insertDecisions(
        client,
        rows.slice(0, 45).map((r) => ({ row: r, stored: null })),
      );
      await replayDecisions(client, rows);
      await addRollupDeltas(client, rollupDeltasOf([row(1, { source: "local" }), row(2, { source: "fail_static", reasonCode: "fail_static" })]));
    });
    const m = await tierMismatch();
    expect(m.diff).toEqual([]);
    expect(m.empty).toBe(0);
    // Both widths, over two hours: more than one period of each.
    const { rows: widths } = await pool.query<{ minutes: number; periods: number; n: number }>(
      "select minutes, count(distinct start)::int as periods, sum(count)::int as n from decision_rollup_tier group by 1 order by 1",
    );
    expect(widths).toEqual([
      { minutes: 10, periods: expect.any(Number), n: 92 },
      { minutes: 60, periods: expect.any(Number), n: 92 },
    ]);
    expect(widths[0]!.periods).toBeGreaterThan(widths[1]!.periods);
    expect(widths[1]!.periods).toBeGreaterThan(1);
  });

  it("when the roll adds its own tiers and another writer follows in the same transaction", async () => {
    // The roll writes the tiers itself and tells the triggers to skip its statement; a writer
    // after it in the same transaction must still get its tiers from the triggers.
    const rows = Array.from({ length: 30 }, (_, i) => row(i));
    await withClient(async (client) => {
      await insertDecisions(
        client,
        rows.map((r) => ({ row: r, stored: null })),
      );
      await client.query("begin");
      expect((await client.query("select decision_rollup_roll() as n")).rows[0].n).not.toBe("0");
      await addRollupDeltas(client, rollupDeltasOf([row(3, { source: "local" })]));
      await client.query("commit");
    });
    expect(await tierMismatch()).toEqual({ diff: [], empty: 0, cells: expect.any(Number) });
    expect((await pool.query("select sum(count)::int as n from decision_rollup_tier where minutes = 10")).rows[0].n).toBe(31);
    expect((await pool.query("select sum(count)::int as n from decision_served_minutes")).rows[0].n).toBe(31);
  });

  it("with two writers adding to the same cells at once", async () => {
    const rows = Array.from({ length: 400 }, (_, i) => row(i));
    const write = (part: TDecisionRow[]) =>
      withClient(async (client) => {
        for (let i = 0; i < part.length; i += 20)
          await insertDecisions(
            client,
            part.slice(i, i + 20).map((r) => ({ row: r, stored: null })),
          );
      });
    // Two rollers too, while the writers write: each cell is moved once, by one of them.
    let writing = true;
    const roll = async () => {
      for (let rolls = 0; writing || rolls < 1; rolls++) await pool.query("select decision_rollup_roll()");
    };
    const writers = Promise.all([write(rows.filter((_, i) => i % 2 === 0)), write(rows.filter((_, i) => i % 2 === 1))]).finally(() => {
      writing = false;
    });
    await Promise.all([writers, roll(), roll()]);
    expect(await tierMismatch()).toEqual({ diff: [], empty: 0, cells: expect.any(Number) });
    expect((await pool.query("select sum(count)::int as n from decision_rollup_tier where minutes = 60")).rows[0].n).toBe(400);
    expect((await pool.query("select sum(count)::int as n from decision_rollup")).rows[0].n).toBe(400);
  });

  it("after the rebuild, an update and a delete of minute cells, with no empty periods left", async () => {
    await withClient((client) =>
      insertDecisions(
        client,
        Array.from({ length: 60 }, (_, i) => ({ row: row(i), stored: null })),
      ),
    );
    // The rows' cells are still pending: the rebuild recounts the server's rows and drops their pending cells.
    await pool.query("select decision_rollup_rebuild($1, $2)", [new Date(NOW - 2 * HOUR), new Date(NOW + HOUR)]);
    expect(await tierMismatch()).toEqual({ diff: [], empty: 0, cells: expect.any(Number) });
    expect((await pool.query("select sum(count)::int as n from decision_rollup")).rows[0].n).toBe(60);
    await pool.query("update decision_rollup set count = count + 3 where region = 'EU'");
    await pool.query("delete from decision_rollup where region = 'NA'");
    const m = await tierMismatch();
    expect(m).toEqual({ diff: [], empty: 0, cells: expect.any(Number) });
    expect((await pool.query("select count(*)::int as n from decision_rollup_tier where region = 'NA'")).rows[0].n).toBe(0);
    expect((await pool.query("select count(*)::int as n from decision_served_minutes where region = 'NA'")).rows[0].n).toBe(0);
  });

  it("is emptied with decision_rollup by TRUNCATE, as decision_served_minutes is", async () => {
    await withClient((client) => replayDecisions(client, [row(1), row(2)]));
    expect((await tierMismatch()).cells).toBeGreaterThan(0);
    await pool.query("truncate decision_rollup");
    expect((await pool.query("select (select count(*) from decision_rollup_tier) + (select count(*) from decision_served_minutes) as n")).rows[0].n).toBe("0");
  });
});
