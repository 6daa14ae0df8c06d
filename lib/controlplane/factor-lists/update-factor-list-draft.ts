import type { Prisma, PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { invalid } from "../../errors";
import { lockVersion, requireStatus, versionSummary } from "./version-guards";
import { validateFactorList, type TFactorListSource } from "./factor-list-input";

/**
 * Edits a draft. Editing a version in review (or a rejected one) is a revision, as in
 * Unleash's change requests: its approvals are revoked and it returns to draft, so nothing a
 * reviewer approved is ever changed underneath them. Approved and later versions are immutable.
 */
export async function updateFactorListDraft(prisma: PrismaClient, actor: TActor, id: string, source: TFactorListSource) {
  return prisma.$transaction(async (tx) => {
    const before = await lockVersion(tx, id);
    requireStatus(before, ["draft", "in_review", "rejected"], "edit");
    const { value, yaml } = await validateFactorList(tx, source);
    if (value.operation !== before.operationKey) {
      throw invalid([{ path: "operation", message: `this version belongs to ${before.operationKey}; create a new draft for ${value.operation}` }]);
    }
    const revoked = await tx.factorListReview.updateMany({ where: { versionId: id, revokedAt: null }, data: { revokedAt: new Date() } });
    const after = await tx.factorListVersion.update({
      where: { id },
      data: {
        document: value as unknown as Prisma.InputJsonValue,
        yaml,
        changeNote: source.changeNote || before.changeNote,
        status: "draft",
        submittedAt: null,
      },
    });
    await appendAudit(tx, actor, {
      action: "factor_list.edit",
      targetType: "factor_list_version",
      targetId: id,
      before: { ...versionSummary(before), yaml: before.yaml },
      after: { ...versionSummary(after), yaml, reviewsRevoked: revoked.count },
    });
    return after;
  });
}
