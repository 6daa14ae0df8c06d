import type { PrismaClient } from "../db";
import { type TActor, appendAudit } from "../audit";
import { ContractError, invalid, notFound } from "../errors";
import { changeSummary } from "./compliance-hold";

/** Compliance rejects a held change, with a comment saying why; nothing applies. */
export async function rejectCatalogChange(prisma: PrismaClient, actor: TActor, id: string, comment: string) {
  if (comment.trim() === "") throw invalid([{ path: "comment", message: "say why the change is rejected" }]);
  return prisma.$transaction(async (tx) => {
    await tx.$queryRaw`select id from catalog_change where id = ${id}::uuid for update`;
    const change = await tx.catalogChange.findUnique({ where: { id } });
    if (!change) throw notFound("catalogue change", id);
    if (change.status !== "pending") throw new ContractError("invalid_state", `the change is ${change.status}, not pending`);
    const after = await tx.catalogChange.update({
      where: { id },
      data: { status: "rejected", decidedById: actor.userId, decidedBy: actor.label, decidedAt: new Date(), comment },
    });
    await appendAudit(tx, actor, {
      action: "catalog.change.reject",
      targetType: "catalog_change",
      targetId: id,
      before: { status: "pending" },
      after: { status: "rejected" },
      reason: comment,
    });
    return { change: changeSummary(after) };
  });
}
