import { z } from "zod";
import { type Prisma, type PrismaClient, notifyConfigChange } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { ContractError, isUniqueViolation, notFound } from "../../errors";
import { notifyPolicyActivated } from "../../notify";
import { nextVersionNumber, versionSummary } from "./version-guards";
import { movePolicyPointer } from "./policy-pointer";

export const ZRollbackBody = z.strictObject({
  reason: z.string().trim().min(1, "a rollback needs a reason").max(2000),
  expectedLockVersion: z.number().int().nonnegative().optional(),
});

/**
 * Re-activates an earlier version's document as a new version, so history only grows and
 * the version that routes is always the newest activation. Only versions that were active
 * before can be rolled back to: their content was reviewed and ran in production, which is
 * why this skips review (an incident procedure, the paper's section 5 (docs/references.md)).
 */
export async function rollbackFactorList(prisma: PrismaClient, actor: TActor, targetId: string, body: z.output<typeof ZRollbackBody>) {
  try {
    return await prisma.$transaction(async (tx) => {
      const target = await tx.factorListVersion.findUnique({ where: { id: targetId } });
      if (!target) throw notFound("factor-list version", targetId);
      if (!target.activatedAt)
        throw new ContractError("never_active", `version ${target.version} was never active; only previously active versions can be rolled back to`);
      if (target.status === "active") throw new ContractError("already_active", `version ${target.version} is the active version`);
      const created = await tx.factorListVersion.create({
        data: {
          operationKey: target.operationKey,
          version: await nextVersionNumber(tx, target.operationKey),
          status: "active",
          document: target.document as Prisma.InputJsonValue,
          yaml: target.yaml,
          changeNote: `rollback to version ${target.version}: ${body.reason}`,
          gatesChanged: false,
          authorId: actor.userId,
          rollbackOfId: target.id,
          activatedAt: new Date(),
        },
      });
      const { before: pointerBefore, lockVersion: newLock } = await movePolicyPointer(
        tx,
        target.operationKey,
        { activeVersionId: created.id },
        body.expectedLockVersion,
      );
      if (pointerBefore.activeVersionId) {
        await tx.factorListVersion.update({ where: { id: pointerBefore.activeVersionId }, data: { status: "superseded", supersededAt: new Date() } });
      }
      const after = await tx.factorListVersion.update({ where: { id: created.id }, data: { basedOnId: pointerBefore.activeVersionId } });
      await notifyConfigChange(tx, { kind: "policy", operationKey: target.operationKey });
      await notifyPolicyActivated(tx, after, actor);
      await appendAudit(tx, actor, {
        action: "factor_list.rollback",
        targetType: "factor_list_version",
        targetId: created.id,
        before: { previousActiveVersionId: pointerBefore.activeVersionId },
        after: { ...versionSummary(after), rollbackOf: { id: target.id, version: target.version }, lockVersion: newLock },
        reason: body.reason,
      });
      return after;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ContractError("conflict", "another change to this operation's versions happened at the same moment; retry");
    throw err;
  }
}
