import { type PrismaClient, notifyConfigChange } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { lockVersion, requireStatus, versionSummary } from "./version-guards";
import { movePolicyPointer } from "./policy-pointer";
import type { TPointerBody } from "./activate-factor-list";

/** Stops evaluating a version in shadow (it goes back to approved, and may be shadowed or activated later). */
export async function endShadow(prisma: PrismaClient, actor: TActor, id: string, body: TPointerBody = {}) {
  return prisma.$transaction(async (tx) => {
    const before = await lockVersion(tx, id);
    requireStatus(before, ["shadow"], "end the shadow of");
    const { lockVersion: newLock } = await movePolicyPointer(tx, before.operationKey, { shadowVersionId: null }, body.expectedLockVersion);
    const after = await tx.factorListVersion.update({ where: { id }, data: { status: "approved" } });
    await notifyConfigChange(tx, { kind: "policy", operationKey: before.operationKey });
    await appendAudit(tx, actor, {
      action: "factor_list.end_shadow",
      targetType: "factor_list_version",
      targetId: id,
      before: versionSummary(before),
      after: { ...versionSummary(after), lockVersion: newLock },
      reason: body.reason ?? null,
    });
    return after;
  });
}
