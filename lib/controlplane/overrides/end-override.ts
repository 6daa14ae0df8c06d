import { z } from "zod";
import { type PrismaClient, notifyConfigChange } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { ContractError, notFound } from "../../errors";
import { notifyOverride } from "../../notify";

export const ZEndOverrideBody = z.strictObject({ reason: z.string().trim().min(3, "say why the override ends").max(2000) });

export async function endOverride(prisma: PrismaClient, actor: TActor, id: string, reason: string, now = new Date()) {
  return prisma.$transaction(async (tx) => {
    const before = await tx.override.findUnique({ where: { id } });
    if (!before) throw notFound("override", id);
    const ended = await tx.override.updateMany({ where: { id, endedAt: null }, data: { endedAt: now, endedById: actor.userId, endReason: reason } });
    if (ended.count === 0) throw new ContractError("already_ended", `override ${id} already ended (${before.endReason ?? ""})`);
    const after = await tx.override.findUniqueOrThrow({ where: { id } });
    await notifyConfigChange(tx, { kind: "override", operationKey: before.operationKey });
    await notifyOverride(tx, after, "ended", actor, now);
    await appendAudit(tx, actor, { action: "override.end", targetType: "override", targetId: id, before, after, reason }, now);
    return after;
  });
}
