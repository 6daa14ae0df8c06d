import { type PrismaClient, notifyConfigChange } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { lockVersion, requireStatus, versionSummary } from "./version-guards";
import { movePolicyPointer } from "./policy-pointer";
import type { TPointerBody } from "./activate-factor-list";

/**
 * Runs an approved version in shadow: evaluated beside the active one on live requests
 * without routing traffic (the paper's section 5.1, docs/references.md). A version already in shadow goes back to
 * approved, so it can be shadowed or activated again later.
 */
export async function shadowFactorList(prisma: PrismaClient, actor: TActor, id: string, body: TPointerBody = {}) {
  return prisma.$transaction(async (tx) => {
    const before = await lockVersion(tx, id);
    requireStatus(before, ["approved"], "shadow");
    const { before: pointerBefore, lockVersion: newLock } = await movePolicyPointer(tx, before.operationKey, { shadowVersionId: id }, body.expectedLockVersion);
    if (pointerBefore.shadowVersionId) {
      await tx.factorListVersion.update({ where: { id: pointerBefore.shadowVersionId }, data: { status: "approved" } });
    }
    const after = await tx.factorListVersion.update({ where: { id }, data: { status: "shadow", shadowedAt: new Date() } });
    await notifyConfigChange(tx, { kind: "policy", operationKey: before.operationKey });
    await appendAudit(tx, actor, {
      action: "factor_list.shadow",
      targetType: "factor_list_version",
      targetId: id,
      before: { ...versionSummary(before), previousShadowVersionId: pointerBefore.shadowVersionId },
      after: { ...versionSummary(after), lockVersion: newLock },
      reason: body.reason ?? null,
    });
    return after;
  });
}
