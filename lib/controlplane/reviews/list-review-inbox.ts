import type { TPermission } from "../../auth";
import type { PrismaClient } from "../../db";
import { diffAgainstActive } from "../factor-lists/version-guards";
import { standingOf, type TCapacity } from "./review-standing";

/** How many of each kind the inbox reads at most: a backlog beyond this is shown as "more". */
const INBOX_LIMIT = 100;

export type TInboxItem =
  | {
      kind: "factor_list";
      id: string;
      operation: string;
      version: number;
      changeNote: string;
      author: string;
      submittedAt: Date | null;
      /** The approvals still missing that this person may give. */
      yours: TCapacity[];
      waitingOn: TCapacity[];
    }
  | { kind: "catalog_change"; id: string; target: string; reasons: string[]; requestedBy: string; requestedAt: Date };

/**
 * What waits for one person's review: factor-list versions in review with a missing approval
 * this person may give (not their own, not already reviewed by them: the rules
 * approveFactorList enforces), and pending catalogue changes held for compliance
 * (certifications, regions, requirements, credentials, adapters) that someone else asked for.
 * Oldest first, since the oldest has waited longest.
 */
export async function listReviewInbox(prisma: PrismaClient, userId: string, permissions: readonly TPermission[]) {
  const reviewsPolicy = permissions.includes("factor_list.approve") || permissions.includes("factor_list.approve_compliance");
  const reviewsCatalog = permissions.includes("catalog.approve_compliance");
  const [versions, changes] = await Promise.all([
    reviewsPolicy
      ? prisma.factorListVersion.findMany({
          where: { status: "in_review" },
          orderBy: [{ submittedAt: "asc" }, { createdAt: "asc" }],
          take: INBOX_LIMIT,
        })
      : [],
    reviewsCatalog
      ? prisma.catalogChange.findMany({
          where: { status: "pending", OR: [{ requestedById: null }, { requestedById: { not: userId } }] },
          orderBy: { requestedAt: "asc" },
          take: INBOX_LIMIT,
        })
      : [],
  ]);
  const ids = versions.map((v) => v.id);
  const [reviews, edits, authors] = await Promise.all([
    ids.length ? prisma.factorListReview.findMany({ where: { versionId: { in: ids } }, include: { reviewer: { select: { email: true } } } }) : [],
    ids.length
      ? prisma.auditEntry.findMany({
          where: { targetType: "factor_list_version", targetId: { in: ids }, action: "factor_list.edit", actorId: { not: null } },
          select: { targetId: true, actorId: true },
        })
      : [],
    prisma.user.findMany({ where: { id: { in: versions.map((v) => v.authorId).filter((a): a is string => a !== null) } }, select: { id: true, email: true } }),
  ]);
  const emailOf = new Map(authors.map((a) => [a.id, a.email]));
  const items: TInboxItem[] = [];
  for (const v of versions) {
    const wrote = new Set([v.authorId, ...edits.filter((e) => e.targetId === v.id).map((e) => e.actorId)].filter((x): x is string => x !== null));
    const diff = await diffAgainstActive(prisma, v);
    const standing = standingOf(
      v,
      reviews.filter((r) => r.versionId === v.id),
      diff.complianceRelevant,
      wrote,
      userId,
      permissions,
    );
    const yours: TCapacity[] = [...(standing.may.approve ? ["approver" as const] : []), ...(standing.may.approveCompliance ? ["compliance" as const] : [])];
    if (yours.length === 0) continue;
    items.push({
      kind: "factor_list",
      id: v.id,
      operation: v.operationKey,
      version: v.version,
      changeNote: v.changeNote,
      author: (v.authorId && emailOf.get(v.authorId)) ?? "system",
      submittedAt: v.submittedAt,
      yours,
      waitingOn: standing.waitingOn,
    });
  }
  for (const c of changes) {
    items.push({
      kind: "catalog_change",
      id: c.id,
      target: `${c.targetType} ${c.targetKey}`,
      reasons: c.reasons,
      requestedBy: c.requestedBy,
      requestedAt: c.requestedAt,
    });
  }
  return { items, truncated: versions.length === INBOX_LIMIT || changes.length === INBOX_LIMIT };
}
