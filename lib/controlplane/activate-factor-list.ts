import { z } from "zod";
import type { PrismaClient } from "../db/generated/client";
import type { TActor } from "../audit/actor";
import { appendAudit } from "../audit/append-audit";
import { notifyConfigChange } from "../db/notify";
import { ControlPlaneError } from "../errors/api-errors";
import { notifyPolicyActivated } from "../notify/control-events";
import { authorsOf, diffAgainstActive, liveApprovals, lockVersion, requireStatus, versionSummary } from "./factor-list-helpers";
import { movePolicyPointer } from "./policy-pointer";

export const ZPointerBody = z.strictObject({
  reason: z.string().max(2000).optional(),
  /** The operation policy's lock_version the caller saw; a stale one is refused with 409. */
  expectedLockVersion: z.number().int().nonnegative().optional(),
});
export type TPointerBody = z.output<typeof ZPointerBody>;

/** Puts an approved (or shadowed) version live; the previous active version is superseded. Not by its author. */
export async function activateFactorList(prisma: PrismaClient, actor: TActor, id: string, body: TPointerBody = {}) {
  return prisma.$transaction(async (tx) => {
    const before = await lockVersion(tx, id);
    requireStatus(before, ["approved", "shadow"], "activate");
    if (actor.userId && (await authorsOf(tx, before)).has(actor.userId)) {
      // Otherwise an author who is also an approver could put their own change live once others approved it.
      throw new ControlPlaneError(403, "four_eyes", "you wrote or edited this version; someone else must activate it");
    }
    const diff = await diffAgainstActive(tx, before);
    if (diff.complianceRelevant && !(await liveApprovals(tx, id)).compliance) {
      // The active version moved since approval and this version now changes gates or
      // regional rules relative to it: it needs compliance's review before it can go live.
      throw new ControlPlaneError(
        409,
        "needs_compliance_approval",
        "compared with the active version this changes gates or regional rules, which needs a compliance approval",
      );
    }
    const policy = await tx.operationPolicy.findUnique({ where: { operationKey: before.operationKey } });
    const { before: pointerBefore, lockVersion: newLock } = await movePolicyPointer(
      tx,
      before.operationKey,
      { activeVersionId: id, ...(policy?.shadowVersionId === id ? { shadowVersionId: null } : {}) },
      body.expectedLockVersion,
    );
    const now = new Date();
    if (pointerBefore.activeVersionId) {
      await tx.factorListVersion.update({ where: { id: pointerBefore.activeVersionId }, data: { status: "superseded", supersededAt: now } });
    }
    // Keeps what this version changed relative to the one it replaced: after activation the live diff is against itself.
    const after = await tx.factorListVersion.update({
      where: { id },
      data: { status: "active", activatedAt: now, gatesChanged: before.gatesChanged || diff.complianceRelevant },
    });
    await notifyConfigChange(tx, { kind: "policy", operationKey: before.operationKey });
    await notifyPolicyActivated(tx, after, actor, now);
    await appendAudit(tx, actor, {
      action: "factor_list.activate",
      targetType: "factor_list_version",
      targetId: id,
      before: { ...versionSummary(before), previousActiveVersionId: pointerBefore.activeVersionId },
      after: { ...versionSummary(after), lockVersion: newLock },
      reason: body.reason ?? null,
    });
    return after;
  });
}
