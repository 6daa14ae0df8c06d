import { complianceWeakenings, diffFactorLists, type TComplianceWeakening, type TFactorList, type TPolicyDiff } from "../../../router-core/index";
import type { FactorListVersion, Prisma } from "../../db";
import { ContractError, notFound } from "../../errors";

/**
 * Locks one version row for the rest of the transaction, so two reviewers or an editor and a
 * reviewer acting at once are applied one after the other, each seeing the other's result.
 */
export async function lockVersion(tx: Prisma.TransactionClient, id: string): Promise<FactorListVersion> {
  await tx.$queryRaw`select id from factor_list_version where id = ${id}::uuid for update`;
  const version = await tx.factorListVersion.findUnique({ where: { id } });
  if (!version) throw notFound("factor-list version", id);
  return version;
}

/**
 * Who wrote a version: its author and everyone who edited it (an edit rewrites the content,
 * so the editor is an author too). Read from the audit log, where every edit is recorded.
 */
export async function authorsOf(tx: Prisma.TransactionClient, version: Pick<FactorListVersion, "id" | "authorId">): Promise<Set<string>> {
  const edits = await tx.auditEntry.findMany({
    where: { targetType: "factor_list_version", targetId: version.id, action: "factor_list.edit", actorId: { not: null } },
    select: { actorId: true },
    distinct: ["actorId"],
  });
  return new Set([version.authorId, ...edits.map((e) => e.actorId)].filter((id): id is string => id !== null));
}

export function requireStatus(version: FactorListVersion, allowed: readonly FactorListVersion["status"][], doing: string): void {
  if (!allowed.includes(version.status)) {
    throw new ContractError(
      "invalid_state",
      `cannot ${doing} version ${version.version} of ${version.operationKey}: it is ${version.status} (needs ${allowed.join(" or ")})`,
    );
  }
}

/** The structural diff against the operation's active version; against nothing, everything is new. */
export async function diffAgainstActive(
  tx: Prisma.TransactionClient,
  version: Pick<FactorListVersion, "operationKey" | "document">,
): Promise<TPolicyDiff & { activeVersionId: string | null }> {
  const policy = await tx.operationPolicy.findUnique({ where: { operationKey: version.operationKey } });
  const active = policy?.activeVersionId ? await tx.factorListVersion.findUnique({ where: { id: policy.activeVersionId } }) : null;
  const doc = version.document as unknown as TFactorList;
  if (!active) {
    const changes = Object.entries(doc).map(([path, after]) => ({
      path,
      kind: "added" as const,
      after,
      complianceRelevant: path === "gates" || path === "regions",
    }));
    return { changes, gatesChanged: true, complianceRelevant: true, activeVersionId: null };
  }
  return { ...diffFactorLists(active.document as unknown as TFactorList, doc), activeVersionId: active.id };
}

export async function liveApprovals(tx: Prisma.TransactionClient, versionId: string) {
  const reviews = await tx.factorListReview.findMany({ where: { versionId, revokedAt: null, decision: "approved" } });
  return { approver: reviews.some((r) => r.capacity === "approver"), compliance: reviews.some((r) => r.capacity === "compliance"), reviews };
}

/** Summary of a version for audit before/after: the document is in the version row itself. */
export function versionSummary(v: FactorListVersion) {
  return { id: v.id, operation: v.operationKey, version: v.version, status: v.status, changeNote: v.changeNote, gatesChanged: v.gatesChanged };
}

export async function nextVersionNumber(tx: Prisma.TransactionClient, operationKey: string): Promise<number> {
  const last = await tx.factorListVersion.findFirst({ where: { operationKey }, orderBy: { version: "desc" }, select: { version: true } });
  return (last?.version ?? 0) + 1;
}

/** How the version loosens compliance against the operation's active version (nothing when none is active). */
export async function weakeningsAgainstActive(
  tx: Prisma.TransactionClient,
  version: Pick<FactorListVersion, "id" | "operationKey" | "document">,
): Promise<TComplianceWeakening[]> {
  const policy = await tx.operationPolicy.findUnique({ where: { operationKey: version.operationKey } });
  if (!policy?.activeVersionId || policy.activeVersionId === version.id) return [];
  const active = await tx.factorListVersion.findUnique({ where: { id: policy.activeVersionId } });
  return active ? complianceWeakenings(active.document as unknown as TFactorList, version.document as unknown as TFactorList) : [];
}
