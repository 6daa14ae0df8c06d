import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "@/test/support/database";
import { maintainPartitions } from "./partitions";
import { addRollupDeltas, rollupDeltasOf, type TRollupDelta } from "./rollup";
import { insertDecisions, replayDecisions, type TDecisionRow } from "./rows";

let db: TTestDatabase;
let pool: pg.Pool;
const NOW = Date.now();

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  await maintainPartitions(pool, { now: NOW, daysAhead: 1, retentionDays: 0 });
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
    createdAt: NOW - (i % 3) * 60_000,
    operation: "SEND_SMS",
    region: i % 2 === 0 ? "EU" : "NA",
    requestId: `r-${crypto.randomUUID()}`,
    policyVersion: "v1",
    shadowVersion: null,
    selectedProvider: i % 4 === 0 ? null : "provider_A",
    reasonCode: "share_weighted",
    shadowPick: i % 5 === 0 ? "provider_B" : null,
    shadowAgrees: i % 5 === 0 ? false : null,
    scoreMargin: null,
    stale: false,
    metricAgeMs: null,
    fallbackAction: null,
    degraded: false,
    body: "{}",
    durability: "sync",
    instanceId: "rollup-test",
    source: "server",
    ...over,
  };
}

const CELL = "minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick";

/**
 * decision_rollup as cells, in rollupDeltasOf's shape, sorted: after moving the pending cells
 * (decision_rollup_roll), or with them counted in as reads count them (`pending: "counted"`).
 */
async function cells(pending: "rolled" | "counted" = "rolled"): Promise<TRollupDelta[]> {
  if (pending === "rolled") {
    await pool.query("select decision_rollup_roll()");
    expect((await pool.query("select count(*)::int as n from decision_rollup_pending")).rows[0].n).toBe(0);
  }
  const from =
    pending === "rolled" ? "decision_rollup" : `(select ${CELL}, count from decision_rollup union all select ${CELL}, count from decision_rollup_pending) c`;
  const { rows } = await pool.query<Record<string, unknown>>(
    `select (extract(epoch from minute) * 1000)::bigint as minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, sum(count) as count
       from ${from} group by ${CELL}`,
  );
  return sortCells(
    rows.map((r) => ({
      minute: Number(r.minute),
      operation: r.operation as string,
      region: r.region as string,
      selectedProvider: r.selected_provider as string,
      reasonCode: r.reason_code as string,
      policyVersion: r.policy_version as string,
      shadow: r.shadow as TRollupDelta["shadow"],
      stale: r.stale as boolean,
      degraded: r.degraded as boolean,
      source: r.source as TRollupDelta["source"],
      shadowPick: r.shadow_pick as string,
      count: Number(r.count),
    })),
  );
}

const sortCells = (xs: TRollupDelta[]) => [...xs].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe("decision_rollup written with the rows (through decision_rollup_pending)", () => {
  it("counts what the insert and the replay inserted, once, and the JS cells of a batch equal them", async () => {
    const rows = Array.from({ length: 40 }, (_, i) => row(i));
    const client = await pool.connect();
    try {
      await insertDecisions(
        client,
        rows.slice(0, 20).map((r) => ({ row: r, stored: null })),
      );
      await replayDecisions(client, rows.slice(20));
      // The same again: a batch answered from its own rows, a segment replayed twice.
      await insertDecisions(
        client,
        rows.slice(0, 20).map((r) => ({ row: r, stored: null })),
      );
      await replayDecisions(client, rows);
    } finally {
      client.release();
    }
    // The inserted rows' cells wait in decision_rollup_pending (the replayed ones went to the rollup): counted either way.
    expect((await pool.query("select count(*)::int as n from decision_rollup_pending")).rows[0].n).toBeGreaterThan(0);
    expect(await cells("counted")).toEqual(sortCells(rollupDeltasOf(rows)));
    expect(await cells()).toEqual(sortCells(rollupDeltasOf(rows)));
  });

  it("stores a client's decision whose count its report carries, without counting it", async () => {
    const local = [row(1, { source: "local", counted: false }), row(2, { source: "fail_static", reasonCode: "fail_static", counted: false })];
    const counted = row(3, { source: "local" });
    const client = await pool.connect();
    try {
      await insertDecisions(
        client,
        [local[0]!, counted].map((r) => ({ row: r, stored: null })),
      );
      await replayDecisions(client, [local[1]!]);
    } finally {
      client.release();
    }
    expect((await pool.query("select count(*)::int as n from decision")).rows[0].n).toBe(3);
    expect(await cells()).toEqual(sortCells(rollupDeltasOf([counted])));
    expect(rollupDeltasOf(local)).toEqual([]);
  });

  it("addRollupDeltas sums equal cells and adds to what is there", async () => {
    const [cell] = rollupDeltasOf([row(1)]);
    const client = await pool.connect();
    try {
      await addRollupDeltas(client, [cell!, { ...cell!, count: 4 }]);
      await addRollupDeltas(client, [{ ...cell!, count: 10 }]);
    } finally {
      client.release();
    }
    expect(await cells()).toEqual([{ ...cell!, count: 15 }]);
  });
});
