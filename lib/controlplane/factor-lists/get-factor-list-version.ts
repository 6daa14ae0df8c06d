import type { PrismaClient } from "../../db";
import { notFound } from "../../errors";
import { diffAgainstActive } from "./version-guards";

/**
 * One version with what a reviewer needs: the structural diff against the active version,
 * every review (revoked ones marked), and the policy pointer's lock_version to send back
 * with activate/shadow so a stale screen cannot overwrite a newer activation.
 */
export async function getFactorListVersion(prisma: PrismaClient, id: string) {
  const version = await prisma.factorListVersion.findUnique({ where: { id } });
  if (!version) throw notFound("factor-list version", id);
  const [diff, reviews, policy] = await Promise.all([
    diffAgainstActive(prisma, version),
    prisma.factorListReview.findMany({
      where: { versionId: id },
      orderBy: { createdAt: "asc" },
      include: { reviewer: { select: { email: true, name: true } } },
    }),
    prisma.operationPolicy.findUnique({ where: { operationKey: version.operationKey } }),
  ]);
  const pending = version.status === "draft" || version.status === "in_review" || version.status === "approved" || version.status === "shadow";
  return {
    version,
    diff,
    complianceApprovalRequired: diff.complianceRelevant,
    /**
     * Whether this version changes gates or regional rules, for its compliance badge: measured
     * against the active version while it is still to be decided, and the recorded review finding
     * once it went live or was set aside (against itself the diff is empty).
     */
    changesCompliance: pending ? diff.complianceRelevant : version.gatesChanged,
    reviews,
    policy: { activeVersionId: policy?.activeVersionId ?? null, shadowVersionId: policy?.shadowVersionId ?? null, lockVersion: policy?.lockVersion ?? 0 },
  };
}
