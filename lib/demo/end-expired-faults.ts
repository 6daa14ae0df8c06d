import type { PrismaClient } from "../db";
import { SYSTEM_ACTOR, appendAudit } from "../audit";

/**
 * Writes one audit entry by "system" for each fault whose planned end has passed, so the log
 * shows when a chaos fault stopped as well as when it started. The simulator already ignores a
 * fault past its end; this only records it. The expiry_audited_at guard inside the transaction
 * makes a concurrent sweep (another instance, a new leader) a no-op, and a fault an operator
 * ended early already has its own entry.
 */
export async function endExpiredFaults(prisma: PrismaClient, now = new Date()): Promise<string[]> {
  const due = await prisma.demoFault.findMany({ where: { endedAt: null, expiryAuditedAt: null, endsAt: { lte: now } }, select: { id: true }, take: 500 });
  const recorded: string[] = [];
  for (const { id } of due) {
    const done = await prisma.$transaction(async (tx) => {
      const res = await tx.demoFault.updateMany({ where: { id, endedAt: null, expiryAuditedAt: null }, data: { expiryAuditedAt: now } });
      if (res.count === 0) return false;
      const after = await tx.demoFault.findUniqueOrThrow({ where: { id } });
      await appendAudit(
        tx,
        SYSTEM_ACTOR,
        {
          action: "demo.fault_expire",
          targetType: "demo_fault",
          targetId: id,
          before: { ...after, expiryAuditedAt: null },
          after,
          reason: `planned end ${after.endsAt.toISOString()} passed`,
        },
        now,
      );
      return true;
    });
    if (done) recorded.push(id);
  }
  return recorded;
}
