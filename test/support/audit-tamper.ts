import type { PrismaClient } from "../../lib/db/generated/client";
import { auditEntryHash } from "../../lib/audit/hash";

/**
 * Tests play an attacker who holds the database (the table's owner): the append-only trigger
 * binds every statement, so the attacker disables it first, as the owner can. Runs the
 * statements in one transaction with the trigger off and turns it back on.
 */
export async function asDatabaseOwner(prisma: PrismaClient, ...statements: string[]): Promise<void> {
  await prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe("alter table audit_entry disable trigger user");
    for (const sql of statements) await tx.$executeRawUnsafe(sql);
    await tx.$executeRawUnsafe("alter table audit_entry enable trigger user");
  });
}

/**
 * The attack of issue 25, item 7: change entry `seq`'s reason and recompute its hash and every
 * later hash and prev_hash with the product's own hash function, so the links all hold.
 * `macs`: "keep" leaves the MAC column as it was, "strip" empties it from `seq` on.
 */
export async function rewriteChainFrom(prisma: PrismaClient, seq: number, reason: string, macs: "keep" | "strip" = "keep"): Promise<void> {
  const rows = await prisma.auditEntry.findMany({ where: { seq: { gte: seq } }, orderBy: { seq: "asc" } });
  const prev = await prisma.auditEntry.findUnique({ where: { seq: seq - 1 }, select: { hash: true } });
  let prevHash = prev?.hash ?? "0".repeat(64);
  await prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe("alter table audit_entry disable trigger user");
    for (const row of rows) {
      const patched = { ...row, reason: row.seq === seq ? reason : row.reason, prevHash };
      const hash = auditEntryHash(patched);
      await tx.$executeRaw`update audit_entry set reason = ${patched.reason}, prev_hash = ${prevHash}, hash = ${hash},
        mac = case when ${macs} = 'strip' then null else mac end where seq = ${row.seq}`;
      prevHash = hash;
    }
    await tx.$executeRawUnsafe("alter table audit_entry enable trigger user");
  });
}
