import type { TPermission } from "../../auth";
import type { FactorListVersion, Prisma } from "../../db";
import { authorsOf, diffAgainstActive } from "../factor-lists/version-guards";

export type TCapacity = "approver" | "compliance";

/** One approval a version in review needs, and who gave it once given. */
export type TReviewNeed = { capacity: TCapacity; by: { email: string; at: Date } | null };

/**
 * Where a version stands in review and what one person may do about it, by the rules
 * approveFactorList, rejectFactorList and activateFactorList enforce: the console shows only these
 * actions, and the inbox lists a version when one of its missing approvals is this person's to give.
 */
export type TReviewStanding = {
  needs: TReviewNeed[];
  /** The approvals still missing (empty once approved). */
  waitingOn: TCapacity[];
  isAuthor: boolean;
  reviewedAs: TCapacity | null;
  may: { approve: boolean; approveCompliance: boolean; reject: boolean; activate: boolean };
  /** In plain words: after their review, what the version still waits for; on their own change, why it is not theirs to approve or activate. */
  note: string | null;
};

type TReviewRow = { reviewerId: string; capacity: TCapacity; decision: string; createdAt: Date; revokedAt: Date | null; reviewer: { email: string } };

/** The standing from rows already read; `complianceRequired` is the live diff's verdict. */
export function standingOf(
  version: Pick<FactorListVersion, "status">,
  reviews: TReviewRow[],
  complianceRequired: boolean,
  authors: Set<string>,
  userId: string | null,
  permissions: readonly TPermission[],
): TReviewStanding {
  const live = reviews.filter((r) => r.revokedAt === null);
  const approvalBy = (capacity: TCapacity) => {
    const r = live.find((x) => x.capacity === capacity && x.decision === "approved");
    return r ? { email: r.reviewer.email, at: r.createdAt } : null;
  };
  const needs: TReviewNeed[] = [{ capacity: "approver", by: approvalBy("approver") }];
  if (complianceRequired) needs.push({ capacity: "compliance", by: approvalBy("compliance") });
  const inReview = version.status === "in_review";
  const waitingOn = inReview ? needs.filter((n) => n.by === null).map((n) => n.capacity) : [];
  const isAuthor = userId !== null && authors.has(userId);
  const reviewedAs = userId === null ? null : (live.find((r) => r.reviewerId === userId)?.capacity ?? null);
  const free = userId !== null && !isAuthor && reviewedAs === null;
  const may = {
    approve: inReview && free && waitingOn.includes("approver") && permissions.includes("factor_list.approve"),
    approveCompliance: inReview && free && waitingOn.includes("compliance") && permissions.includes("factor_list.approve_compliance"),
    reject: inReview && userId !== null && permissions.includes("factor_list.reject"),
    activate: ["approved", "shadow"].includes(version.status) && userId !== null && !isAuthor && permissions.includes("factor_list.activate"),
  };
  const couldApprove = waitingOn.some((c) => permissions.includes(c === "approver" ? "factor_list.approve" : "factor_list.approve_compliance"));
  let note: string | null = null;
  if (inReview && reviewedAs) {
    const rest =
      waitingOn.length > 0
        ? `it now waits for ${waitingOn.map((c) => (c === "approver" ? "an approver" : "compliance")).join(" and ")}`
        : "no approval is missing";
    note = `You already reviewed this version (as ${reviewedAs}); ${rest}. One person gives one review, so the rest comes from someone else.`;
  } else if (inReview && couldApprove && isAuthor) {
    note = "You wrote or edited this version, so someone else must approve it.";
  } else if (["approved", "shadow"].includes(version.status) && isAuthor && permissions.includes("factor_list.activate")) {
    note = "You wrote or edited this version, so someone else must activate it.";
  }
  return { needs, waitingOn, isAuthor, reviewedAs, may, note };
}

/** The standing of one version for one person, read inside `tx` (or the client). */
export async function reviewStanding(
  tx: Prisma.TransactionClient,
  version: FactorListVersion,
  userId: string | null,
  permissions: readonly TPermission[],
): Promise<TReviewStanding> {
  const [reviews, diff, authors] = await Promise.all([
    tx.factorListReview.findMany({ where: { versionId: version.id }, include: { reviewer: { select: { email: true } } }, orderBy: { createdAt: "asc" } }),
    diffAgainstActive(tx, version),
    authorsOf(tx, version),
  ]);
  return standingOf(version, reviews, diff.complianceRelevant, authors, userId, permissions);
}
