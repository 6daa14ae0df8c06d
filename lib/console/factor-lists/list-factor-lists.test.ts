import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../../db/client";
import { createTestDatabase, type TTestDatabase } from "../../../test/support/database";
import { seedCatalog } from "../../../test/support/controlplane-fixtures";
import { listFactorLists } from "./list-factor-lists";

let db: TTestDatabase;
let prisma: PrismaClient;

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

describe("listFactorLists", () => {
  it("filtered to one operation, still shows every operation's active version and version count", async () => {
    const policies = await prisma.operationPolicy.findMany({ where: { activeVersionId: { not: null } } });
    expect(policies.length).toBeGreaterThan(0);
    // Filtered to an operation other than the one with an active version, as /factor-lists?operation=X is.
    const other = (await prisma.operation.create({ data: { key: "SEND_PUSH", description: "push notifications" } })).key;
    const counts = await prisma.factorListVersion.groupBy({ by: ["operationKey"], _count: { _all: true } });
    const expected = new Map(counts.map((c) => [c.operationKey, c._count._all]));

    const all = await listFactorLists();
    const sms = await listFactorLists(other);
    expect(sms.versions.every((v) => v.operation === other)).toBe(true);
    expect(sms.operations).toEqual(all.operations);
    for (const p of policies) {
      const row = sms.operations.find((o) => o.operation === p.operationKey)!;
      expect(row.active?.id, p.operationKey).toBe(p.activeVersionId);
      expect(row.versions, p.operationKey).toBe(expected.get(p.operationKey));
      expect(row.versions).toBeGreaterThan(0);
    }
  });
});
