import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TTestDatabase } from "../../../test/support/database";
import { decisionIdAt } from "../decision-id";
import { createPool } from "../pool";
import { createSpool } from "../spool";
import { maintainPartitions } from "./partitions";
import type { TDecisionRow } from "./rows";
import { createDecisionLog } from "./writer";

let db: TTestDatabase;
let pool: pg.Pool;
let dir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ connectionString: db.url, max: 3 });
  await maintainPartitions(pool, { now: Date.now(), daysAhead: 1, retentionDays: 30 });
  dir = await mkdtemp(path.join(tmpdir(), "sy-replay-race-"));
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
});

function row(requestId: string): TDecisionRow {
  const createdAt = Date.now();
  return {
    id: decisionIdAt(createdAt),
    createdAt,
    operation: "SEND_SMS",
    region: "EU",
    requestId,
    policyVersion: null,
    shadowVersion: null,
    selectedProvider: "provider_A",
    reasonCode: "test",
    shadowPick: null,
    shadowAgrees: null,
    scoreMargin: null,
    stale: false,
    metricAgeMs: null,
    fallbackAction: null,
    degraded: true,
    body: JSON.stringify({ requestId }),
    durability: "sync",
    instanceId: "test",
  };
}

describe("decision log replay", () => {
  // Regression (chaos:db-outage): 240 acknowledged decisions stayed in the spool for good. A batch
  // that failed while a replay pass was running was spooled into a segment the pass had already
  // rotated past; its probe found Postgres up while the pass still ran, so no new pass started.
  it("replays rows spooled while a pass was running, with Postgres up the whole time", async () => {
    const spool = createSpool<TDecisionRow>({ dir, name: "decisions", maxBytes: 1024 * 1024 });
    const first = row("spooled-before");
    const second = row("spooled-during");
    await spool.append([first]);
    const log = createDecisionLog({ pool, spool, durability: "sync", partitions: { daysAhead: 1, retentionDays: 30 }, probeIntervalMs: 50 });
    const pass = log.replaySpool();
    // Queued behind the pass's segment rotation, as an append from a failing batch would be.
    await spool.append([second]);
    await pass;
    const t0 = Date.now();
    const count = async () =>
      (await pool.query<{ n: number }>("select count(*)::int as n from decision where id = any($1::uuid[])", [[first.id, second.id]])).rows[0]!.n;
    // The segment is released just after its rows commit, so wait for both.
    while (((await count()) < 2 || spool.hasPending()) && Date.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 20));
    expect(await count()).toBe(2);
    expect(spool.hasPending()).toBe(false);
    await log.close();
  });
});
