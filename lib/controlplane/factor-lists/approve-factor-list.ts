import { z } from "zod";
import type { Prisma, PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { ContractError } from "../../errors";
import { notifyComplianceApproved } from "../../notify";
import { authorsOf, diffAgainstActive, liveApprovals, lockVersion, requireStatus, versionSummary } from "./version-guards";

export const ZReviewBody = z.strictObject({ comment: z.string().max(2000).default("") });

/**
 * Records an approval in the given capacity. Four-eyes: the author (or anyone who edited the
 * version) cannot approve, and one person gives at most one review per version, so the approver
 * and the compliance reviewer of a gate change are two different people besides the author. The version becomes
 * approved once an approver has approved and, when it changes gates or regional rules
 * compared with the active version (re-checked now, since the active one may have moved),
 * compliance has too.
 */
async function authorLabel(tx: Prisma.TransactionClient, authorId: string | null): Promise<string> {
  const author = authorId ? await tx.user.findUnique({ where: { id: authorId }, select: { email: true } }) : null;
  return author?.email ?? "unknown";
}

export async function approveFactorList(prisma: PrismaClient, actor: TActor, id: string, capacity: "approver" | "compliance", comment: string) {
  return prisma.$transaction(async (tx) => {
    const before = await lockVersion(tx, id);
    requireStatus(before, ["in_review"], "approve");
    if (!actor.userId) throw new ContractError("forbidden", "only a signed-in user can approve");
    if ((await authorsOf(tx, before)).has(actor.userId)) {
      throw new ContractError("four_eyes", "you wrote or edited this version; someone else must approve it");
    }
    const existing = await tx.factorListReview.findFirst({ where: { versionId: id, reviewerId: actor.userId, revokedAt: null } });
    if (existing) throw new ContractError("already_reviewed", `you already reviewed this version (as ${existing.capacity})`);
    await tx.factorListReview.create({ data: { versionId: id, reviewerId: actor.userId, decision: "approved", capacity, comment } });

    const diff = await diffAgainstActive(tx, before);
    const approvals = await liveApprovals(tx, id);
    const complete = approvals.approver && (!diff.complianceRelevant || approvals.compliance);
    const after = await tx.factorListVersion.update({
      where: { id },
      data: { gatesChanged: diff.complianceRelevant, ...(complete ? { status: "approved", approvedAt: new Date() } : {}) },
    });
    const missing = [!approvals.approver && "approver", diff.complianceRelevant && !approvals.compliance && "compliance"].filter(Boolean);
    if (capacity === "compliance") {
      const summary = `factor list v${after.version} for ${after.operationKey}${complete ? ", approved" : `, awaiting ${missing.join(" and ")}`}`;
      const target = { targetType: "factor_list", targetKey: after.operationKey, summary, url: `/factor-lists/${id}` };
      await notifyComplianceApproved(tx, { changeId: id, ...target, requestedBy: await authorLabel(tx, before.authorId) }, actor);
    }
    await appendAudit(tx, actor, {
      action: capacity === "compliance" ? "factor_list.approve_compliance" : "factor_list.approve",
      targetType: "factor_list_version",
      targetId: id,
      before: versionSummary(before),
      after: { ...versionSummary(after), awaiting: missing },
      reason: comment || null,
    });
    return { version: after, awaiting: missing as string[] };
  });
}
