import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../../db/client";
import { createTestDatabase, type TTestDatabase } from "../../../test/support/database";
import { seedCatalog } from "../../../test/support/controlplane-fixtures";
import { maintainPartitions } from "../../dataplane/decision-log/partitions";
import { getShadowView } from "./get-shadow-view";

let db: TTestDatabase;
let prisma: PrismaClient;
let pool: pg.Pool;

const NOW = Math.floor(Date.now() / 60_000) * 60_000;

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  prisma = createPrisma(db.url);
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  await seedCatalog(prisma);
  await maintainPartitions(pool, { now: NOW, daysAhead: 1, retentionDays: 0 });
});

afterAll(async () => {
  await pool.end();
  await prisma.$disconnect();
  await db.drop();
});

async function insert(atMs: number, operation: string, agrees: boolean | null) {
  await pool.query(
    `insert into decision (id, created_at, operation, region, request_id, selected_provider, reason_code, stale, record, durability, instance_id, shadow_agrees, shadow_pick)
     values (gen_random_uuid(), $1, $2, 'EU', 'r-' || gen_random_uuid(), 'provider_A', 'selected', false, '{}', 'sync', 'test', $3::boolean, case when $3::boolean is null then null else 'provider_B' end)`,
    [new Date(atMs), operation, agrees],
  );
}

describe("getShadowView agreement series", () => {
  it("counts shadowed decisions per bucket from the range start, leaves out empty buckets, other operations and unshadowed rows", async () => {
    // 1 h range: 30 s buckets starting at NOW - 1 h.
    const from = NOW - 3_600_000;
    await insert(from, "SEND_SMS", true); // first instant of bucket 0
    await insert(from + 29_999, "SEND_SMS", false); // last instant of bucket 0
    await insert(from + 30_000, "SEND_SMS", true); // bucket 1
    await insert(from + 30_001, "SEND_SMS", null); // not shadowed: not compared
    await insert(from + 30_002, "SEND_EMAIL", false); // another operation
    await insert(from + 600_000, "SEND_SMS", true); // bucket 20
    await insert(NOW, "SEND_SMS", false); // the range's last instant, in the last bucket
    await insert(from - 1, "SEND_SMS", false); // before the range
    await insert(NOW + 1, "SEND_SMS", false); // after it

    const view = await getShadowView("SEND_SMS", "1h", NOW);
    expect(view.series).toEqual([
      { t: from, compared: 2, agreed: 1, rate: 0.5 },
      { t: from + 30_000, compared: 1, agreed: 1, rate: 1 },
      { t: from + 600_000, compared: 1, agreed: 1, rate: 1 },
      { t: NOW, compared: 1, agreed: 0, rate: 0 },
    ]);
  });
});
