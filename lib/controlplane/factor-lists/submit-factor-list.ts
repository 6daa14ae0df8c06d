import type { PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { diffAgainstActive, lockVersion, requireStatus, versionSummary } from "./version-guards";

/** Sends a draft for review; from here on its content can change only by revising it back to draft. */
export async function submitFactorList(prisma: PrismaClient, actor: TActor, id: string) {
  return prisma.$transaction(async (tx) => {
    const before = await lockVersion(tx, id);
    requireStatus(before, ["draft"], "submit");
    const diff = await diffAgainstActive(tx, before);
    const after = await tx.factorListVersion.update({
      where: { id },
      data: { status: "in_review", submittedAt: new Date(), gatesChanged: diff.complianceRelevant },
    });
    await appendAudit(tx, actor, {
      action: "factor_list.submit",
      targetType: "factor_list_version",
      targetId: id,
      before: versionSummary(before),
      after: { ...versionSummary(after), diff: diff.changes.map((c) => ({ path: c.path, kind: c.kind })) },
    });
    return after;
  });
}
