import type { PrismaClient } from "../db";
import { type TActor, appendAudit } from "../audit";
import { ContractError, notFound } from "../errors";
import { toFault, type TFaultRow } from "./to-fault";

/** Ends a fault before its planned end; a fault that is already over cannot be ended again. */
export async function endFault(prisma: PrismaClient, actor: TActor, id: string, now = new Date()): Promise<TFaultRow> {
  return prisma.$transaction(async (tx) => {
    const before = await tx.demoFault.findUnique({ where: { id } });
    if (!before) throw notFound("demo fault", id);
    const ended = await tx.demoFault.updateMany({ where: { id, endedAt: null, endsAt: { gt: now } }, data: { endedAt: now } });
    if (ended.count === 0) throw new ContractError("already_ended", `fault ${id} is already over`);
    const after = await tx.demoFault.findUniqueOrThrow({ where: { id } });
    await appendAudit(tx, actor, { action: "demo.fault_end", targetType: "demo_fault", targetId: id, before, after }, now);
    return toFault(after);
  });
}
