import { z } from "zod";
import type { PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { ContractError } from "../../errors";
import { lockVersion, requireStatus, versionSummary } from "./version-guards";

export const ZRejectBody = z.strictObject({ comment: z.string().trim().min(1, "say why the version is rejected").max(2000) });

/** Rejects a version in review with a comment; the author may revise it back into a draft. */
export async function rejectFactorList(prisma: PrismaClient, actor: TActor, id: string, capacity: "approver" | "compliance", comment: string) {
  return prisma.$transaction(async (tx) => {
    const before = await lockVersion(tx, id);
    requireStatus(before, ["in_review"], "reject");
    if (!actor.userId) throw new ContractError("forbidden", "only a signed-in user can reject");
    await tx.factorListReview.create({ data: { versionId: id, reviewerId: actor.userId, decision: "rejected", capacity, comment } });
    const after = await tx.factorListVersion.update({ where: { id }, data: { status: "rejected" } });
    await appendAudit(tx, actor, {
      action: "factor_list.reject",
      targetType: "factor_list_version",
      targetId: id,
      before: versionSummary(before),
      after: versionSummary(after),
      reason: comment,
    });
    return after;
  });
}
