import { type PrismaClient, notifyConfigChange } from "../../db";
import { SYSTEM_ACTOR, appendAudit } from "../../audit";
import { notifyOverride } from "../../notify";

/**
 * Ends overrides whose expiry has passed, each with an audit entry by "system". The
 * controller leader calls it every tick; the data plane already ignores expired overrides,
 * so this makes the end visible and logged rather than changing routing. The ended_at guard
 * makes a concurrent end (an operator, another leader after failover) a no-op here.
 */
export async function endExpiredOverrides(prisma: PrismaClient, now = new Date()): Promise<string[]> {
  const due = await prisma.override.findMany({ where: { endedAt: null, expiresAt: { lte: now } }, select: { id: true } });
  const ended: string[] = [];
  for (const { id } of due) {
    const done = await prisma.$transaction(async (tx) => {
      const res = await tx.override.updateMany({ where: { id, endedAt: null }, data: { endedAt: now, endReason: "expired" } });
      if (res.count === 0) return false;
      const after = await tx.override.findUniqueOrThrow({ where: { id } });
      await notifyConfigChange(tx, { kind: "override", operationKey: after.operationKey });
      await notifyOverride(tx, after, "ended", SYSTEM_ACTOR, now);
      await appendAudit(
        tx,
        SYSTEM_ACTOR,
        {
          action: "override.expire",
          targetType: "override",
          targetId: id,
          before: { ...after, endedAt: null, endReason: null },
          after,
          reason: `expired at ${after.expiresAt?.toISOString()}`,
        },
        now,
      );
      return true;
    });
    if (done) ended.push(id);
  }
  return ended;
}
