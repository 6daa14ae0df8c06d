import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { SYSTEM_ACTOR, type TActor } from "./actor";
import { appendAudit } from "./append-audit";
import { auditToCsv } from "./export-audit";
import { asDatabaseOwner } from "../../test/support/audit-tamper";
import { verifyAuditChain } from "./verify-audit-chain";

let db: TTestDatabase;
let prisma: PrismaClient;
const actor: TActor = { userId: null, label: "tester@test.local", ip: "10.0.0.1" };

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

beforeEach(async () => {
  await asDatabaseOwner(prisma, "truncate audit_entry");
  for (let i = 1; i <= 5; i++) {
    await prisma.$transaction((tx) =>
      appendAudit(tx, i % 2 ? actor : SYSTEM_ACTOR, {
        action: "override.create",
        targetType: "override",
        targetId: `o${i}`,
        before: i === 1 ? undefined : { n: i - 1, nested: { b: 2, a: [1, "x", null] } },
        after: { n: i, when: new Date(Date.UTC(2026, 0, i)), weight: 0.1 + 0.2, tiny: 1e-7 },
        reason: `reason ${i}`,
      }),
    );
  }
});

describe("hash-chained audit log", () => {
  it("verifies an intact chain (jsonb key order and number formatting do not matter)", async () => {
    const result = await verifyAuditChain(prisma);
    expect(result).toMatchObject({ ok: true, entries: 5 });
  });

  it("detects a modified row", async () => {
    await asDatabaseOwner(prisma, "update audit_entry set reason = 'nothing to see' where seq = 3");
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: false, entries: 2, firstBreak: { seq: 3, problem: "hash_mismatch" } });
  });

  it("detects a modified JSON value", async () => {
    await asDatabaseOwner(prisma, "update audit_entry set after = jsonb_set(after, '{n}', '99') where seq = 4");
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: false, firstBreak: { seq: 4, problem: "hash_mismatch" } });
  });

  it("detects a deleted row", async () => {
    await asDatabaseOwner(prisma, "delete from audit_entry where seq = 2");
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: false, firstBreak: { seq: 2, problem: "missing" } });
  });

  it("detects a deleted row whose successors were renumbered to hide the gap", async () => {
    await asDatabaseOwner(prisma, "delete from audit_entry where seq = 2", "update audit_entry set seq = seq - 1 where seq > 2");
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: false, firstBreak: { seq: 2, problem: "prev_hash_mismatch" } });
  });

  it("detects reordered rows", async () => {
    await asDatabaseOwner(
      prisma,
      "update audit_entry set seq = -1 where seq = 3",
      "update audit_entry set seq = 3 where seq = 4",
      "update audit_entry set seq = 4 where seq = -1",
    );
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: false, firstBreak: { seq: 3, problem: "prev_hash_mismatch" } });
  });

  it("detects a row re-hashed after modification, at the next link", async () => {
    const row = await prisma.auditEntry.findUniqueOrThrow({ where: { seq: 3 } });
    await asDatabaseOwner(prisma, `update audit_entry set hash = '${"f".repeat(64)}' where seq = ${row.seq}`);
    const result = await verifyAuditChain(prisma);
    expect(result.ok).toBe(false);
  });

  it("stays linear under concurrent appends", async () => {
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        prisma.$transaction((tx) => appendAudit(tx, actor, { action: "user.create", targetType: "user", targetId: `u${i}` })),
      ),
    );
    const result = await verifyAuditChain(prisma);
    expect(result).toMatchObject({ ok: true, entries: 30 });
  });

  it("an entry in a rolled-back transaction leaves no trace and no gap", async () => {
    await prisma
      .$transaction(async (tx) => {
        await appendAudit(tx, actor, { action: "user.create", targetType: "user" });
        throw new Error("change failed");
      })
      .catch(() => {});
    await prisma.$transaction((tx) => appendAudit(tx, actor, { action: "user.create", targetType: "user" }));
    expect(await verifyAuditChain(prisma)).toMatchObject({ ok: true, entries: 6 });
  });

  it("exports CSV with quoted cells and JSON columns", async () => {
    const rows = await prisma.auditEntry.findMany({ orderBy: { seq: "asc" } });
    const csv = auditToCsv(rows);
    const lines = csv.trimEnd().split("\r\n");
    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe("seq,at,actor,actorId,action,targetType,targetId,reason,ip,before,after,prevHash,hash,mac");
    expect(lines[1]).toContain('"reason 1"');
    expect(lines[2]).toContain('"{""n"":1');
  });
});
