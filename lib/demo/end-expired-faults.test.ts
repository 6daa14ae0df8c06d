import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { makeUser, seedCatalog } from "../../test/support/controlplane-fixtures";
import { verifyAuditChain } from "../audit/verify-audit-chain";
import { endExpiredFaults } from "./end-expired-faults";
import { endFault } from "./end-fault";
import { injectFault } from "./inject-fault";

let db: TTestDatabase;
let prisma: PrismaClient;
const instances: PrismaClient[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  for (let i = 0; i < 3; i++) instances.push(createPrisma(db.url));
  await seedCatalog(prisma);
});

afterAll(async () => {
  await Promise.all([prisma, ...instances].map((p) => p.$disconnect()));
  await db.drop();
});

describe("endExpiredFaults", () => {
  it("records each fault's automatic expiry once in the hash-chained audit log, even with several instances sweeping at once", async () => {
    const admin = await makeUser(prisma, ["admin"]);
    const t0 = new Date(Date.now() - 600_000);
    const expiring = await injectFault(prisma, admin.actor, { provider: "provider_A", region: "EU", kind: "outage", durationSeconds: 60 }, t0);
    const endedEarly = await injectFault(prisma, admin.actor, { provider: "provider_A", region: "EU", kind: "latency", durationSeconds: 120 }, t0);
    const running = await injectFault(prisma, admin.actor, { provider: "provider_A", region: "EU", kind: "latency", durationSeconds: 3600 }, t0);
    await endFault(prisma, admin.actor, endedEarly.id, new Date(t0.getTime() + 30_000));

    const now = new Date();
    const swept = await Promise.all(instances.map((p) => endExpiredFaults(p, now)));
    expect(swept.flat()).toEqual([expiring.id]);
    expect(await endExpiredFaults(prisma, new Date(now.getTime() + 5_000))).toEqual([]);

    const entries = await prisma.auditEntry.findMany({ where: { action: "demo.fault_expire" } });
    expect(entries.map((e) => [e.targetId, e.actor, e.at.getTime()])).toEqual([[expiring.id, "system", now.getTime()]]);
    expect(entries[0]!.reason).toContain(new Date(expiring.endsAt).toISOString());
    expect(await prisma.auditEntry.count({ where: { targetId: { in: [endedEarly.id, running.id] }, action: "demo.fault_expire" } })).toBe(0);
    expect((await verifyAuditChain(prisma)).ok).toBe(true);
  });
});
