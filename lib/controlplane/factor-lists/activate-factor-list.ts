import { z } from "zod";
import { type PrismaClient, notifyConfigChange } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { ContractError, invalid } from "../../errors";
import { notifyPolicyActivated } from "../../notify";
import { authorsOf, diffAgainstActive, liveApprovals, lockVersion, requireStatus, versionSummary, weakeningsAgainstActive } from "./version-guards";
import { movePolicyPointer } from "./policy-pointer";

export const ZPointerBody = z.strictObject({
  reason: z.string().max(2000).optional(),
  /** The operation policy's lock_version the caller saw; a stale one is refused with 409. */
  expectedLockVersion: z.number().int().nonnegative().optional(),
  /** Activation only: the caller saw how the version loosens compliance and goes ahead (a reason is then required too). */
  confirmComplianceWeakening: z.literal(true).optional(),
});
export type TPointerBody = z.output<typeof ZPointerBody>;

/** Puts an approved (or shadowed) version live; the previous active version is superseded. Not by its author. */
export async function activateFactorList(prisma: PrismaClient, actor: TActor, id: string, body: TPointerBody = {}) {
  return prisma.$transaction(async (tx) => {
    const before = await lockVersion(tx, id);
    requireStatus(before, ["approved", "shadow"], "activate");
    if (actor.userId && (await authorsOf(tx, before)).has(actor.userId)) {
      // Otherwise an author who is also an approver could put their own change live once others approved it.
      throw new ContractError("four_eyes", "you wrote or edited this version; someone else must activate it");
    }
    const diff = await diffAgainstActive(tx, before);
    if (diff.complianceRelevant && !(await liveApprovals(tx, id)).compliance) {
      // The active version moved since approval and this version now changes gates or
      // regional rules relative to it: it needs compliance's review before it can go live.
      throw new ContractError(
        "needs_compliance_approval",
        "compared with the active version this changes gates or regional rules, which needs a compliance approval",
      );
    }
    const weakenings = await weakeningsAgainstActive(tx, before);
    if (weakenings.length > 0) refuseUnconfirmedWeakening(weakenings, body);
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
      after: { ...versionSummary(after), lockVersion: newLock, ...(weakenings.length > 0 ? { complianceWeakened: weakenings.map((w) => w.text) } : {}) },
      reason: body.reason ?? null,
    });
    return after;
  });
}

/**
 * A version that loosens compliance goes live only on purpose: the caller confirms it saw what is
 * loosened and says why, checked here so no client (console, CLI, curl) can skip it.
 */
function refuseUnconfirmedWeakening(weakenings: { text: string }[], body: TPointerBody): void {
  const what = weakenings.map((w) => w.text).join("; ");
  const fields = [
    ...(body.confirmComplianceWeakening
      ? []
      : [{ path: "confirmComplianceWeakening", message: `this version loosens compliance (${what}): confirm with true` }]),
    ...(body.reason?.trim() ? [] : [{ path: "reason", message: "say why compliance is loosened" }]),
  ];
  if (fields.length > 0) throw invalid(fields, `activating this version loosens compliance: ${what}`);
}
