import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "@/test/support/database";
import { maintainPartitions } from "./partitions";
import { startRollupRoller } from "./roller";
import { insertDecisions, type TDecisionRow } from "./rows";

let db: TTestDatabase;
let pool: pg.Pool;
const NOW = Date.now();

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 3 });
  pool.on("error", () => {});
  await maintainPartitions(pool, { now: NOW, daysAhead: 1, retentionDays: 0 });
});
beforeEach(async () => {
  await pool.query("truncate decision, decision_rollup, decision_rollup_pending");
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

function row(i: number): TDecisionRow {
  return {
    id: crypto.randomUUID(),
    createdAt: NOW - (i % 3) * 60_000,
    operation: "SEND_SMS",
    region: "EU",
    requestId: `r-${crypto.randomUUID()}`,
    policyVersion: "v1",
    shadowVersion: null,
    selectedProvider: i % 2 === 0 ? "provider_A" : "provider_B",
    reasonCode: "share_weighted",
    shadowPick: null,
    shadowAgrees: null,
    scoreMargin: null,
    stale: false,
    metricAgeMs: null,
    fallbackAction: null,
    degraded: false,
    body: "{}",
    durability: "sync",
    instanceId: "roller-test",
    source: "server",
  };
}

async function insert(n: number): Promise<void> {
  const client = await pool.connect();
  try {
    await insertDecisions(
      client,
      Array.from({ length: n }, (_, i) => ({ row: row(i), stored: null })),
    );
  } finally {
    client.release();
  }
}

const counts = async () =>
  (
    await pool.query<{ pending: number; rolled: number }>(
      "select (select count(*) from decision_rollup_pending)::int as pending, (select coalesce(sum(count), 0) from decision_rollup)::int as rolled",
    )
  ).rows[0]!;

describe("the rollup roller", () => {
  it("leaves decide's cells pending until a roll moves them all, once", async () => {
    const roller = startRollupRoller({ pool, log: () => {}, intervalMs: 3_600_000 });
    try {
      await insert(12);
      expect(await counts()).toEqual({ pending: expect.any(Number), rolled: 0 });
      expect((await counts()).pending).toBeGreaterThan(0);
      expect(await roller.rollNow()).toBe(6); // 3 minutes × 2 providers
      expect(await counts()).toEqual({ pending: 0, rolled: 12 });
      expect(await roller.rollNow()).toBe(0);
      expect((await counts()).rolled).toBe(12);
    } finally {
      await roller.close();
    }
  });

  it("skips while another roller holds the lock, and rolls on its own timer and at close", async () => {
    const other = await pool.connect();
    const roller = startRollupRoller({ pool, log: () => {}, intervalMs: 20 });
    try {
      await other.query("begin");
      await other.query("select pg_advisory_xact_lock(1398359122)");
      await insert(4);
      expect(await roller.rollNow()).toBe(-1);
      expect(await counts()).toEqual({ pending: expect.any(Number), rolled: 0 });
      await other.query("commit");
      for (let i = 0; i < 200 && (await counts()).rolled < 4; i++) await new Promise((r) => setTimeout(r, 10));
      expect(await counts()).toEqual({ pending: 0, rolled: 4 });
    } finally {
      other.release();
      await roller.close();
    }
    await insert(2);
    const last = startRollupRoller({ pool, log: () => {}, intervalMs: 3_600_000 });
    await last.close();
    expect(await counts()).toEqual({ pending: 0, rolled: 6 });
  });

  it("says once that it cannot roll while Postgres is unreachable", async () => {
    const away = new pg.Pool({ connectionString: "postgresql://nobody@127.0.0.1:1/none", connectionTimeoutMillis: 500 });
    away.on("error", () => {});
    const lines: string[] = [];
    const roller = startRollupRoller({ pool: away, log: (l) => lines.push(l), intervalMs: 10 });
    await new Promise((r) => setTimeout(r, 200));
    await roller.close();
    await away.end();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^decision rollup: moving pending cells failed, retrying every second: /);
  });
});
