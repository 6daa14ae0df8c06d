import "server-only";
import { getPrisma } from "@/lib/db";

export type TVersionRow = {
  id: string;
  operation: string;
  version: number;
  status: string;
  author: string | null;
  changeNote: string;
  gatesChanged: boolean;
  createdAt: number;
  activatedAt: number | null;
  /** Live (unrevoked) reviews, e.g. "approved by a@b (approver)". */
  reviews: { reviewer: string; capacity: string; decision: string }[];
};

export type TOperationPolicyRow = {
  operation: string;
  description: string;
  active: { id: string; version: number } | null;
  shadow: { id: string; version: number } | null;
  versions: number;
};

/** Operations with their active and shadow versions, and every version (newest first) with author and live reviews. */
export async function listFactorLists(operation?: string): Promise<{ operations: TOperationPolicyRow[]; versions: TVersionRow[] }> {
  const prisma = getPrisma();
  const [operations, policies, versions, counts] = await Promise.all([
    prisma.operation.findMany({ orderBy: { key: "asc" }, select: { key: true, description: true } }),
    prisma.operationPolicy.findMany(),
    prisma.factorListVersion.findMany({
      where: operation ? { operationKey: operation } : {},
      orderBy: [{ operationKey: "asc" }, { version: "desc" }],
      omit: { document: true, yaml: true },
      take: 500,
    }),
    // Counted over every operation: the versions list may be filtered to one, the operations table never is.
    prisma.factorListVersion.groupBy({ by: ["operationKey"], _count: { _all: true } }),
  ]);
  const ids = versions.map((v) => v.id);
  const authorIds = [...new Set(versions.map((v) => v.authorId).filter((a): a is string => a !== null))];
  const [reviews, authors] = await Promise.all([
    prisma.factorListReview.findMany({
      where: { versionId: { in: ids }, revokedAt: null },
      include: { reviewer: { select: { email: true } } },
      orderBy: { createdAt: "asc" },
    }),
    prisma.user.findMany({ where: { id: { in: authorIds } }, select: { id: true, email: true } }),
  ]);
  const count = new Map(counts.map((c) => [c.operationKey, c._count._all]));
  // The policy pointers are looked up on their own, so a version outside the filtered list still shows as active.
  const pointerIds = policies.flatMap((p) => [p.activeVersionId, p.shadowVersionId]).filter((id): id is string => id !== null);
  const pointed = await prisma.factorListVersion.findMany({ where: { id: { in: pointerIds } }, select: { id: true, version: true } });
  const ref = (id: string | null | undefined) => pointed.find((v) => v.id === id) ?? null;
  return {
    operations: operations.map((o) => {
      const p = policies.find((x) => x.operationKey === o.key);
      return {
        operation: o.key,
        description: o.description,
        active: ref(p?.activeVersionId),
        shadow: ref(p?.shadowVersionId),
        versions: count.get(o.key) ?? 0,
      };
    }),
    versions: versions.map((v) => ({
      id: v.id,
      operation: v.operationKey,
      version: v.version,
      status: v.status,
      author: authors.find((a) => a.id === v.authorId)?.email ?? null,
      changeNote: v.changeNote,
      gatesChanged: v.gatesChanged,
      createdAt: v.createdAt.getTime(),
      activatedAt: v.activatedAt?.getTime() ?? null,
      reviews: reviews.filter((r) => r.versionId === v.id).map((r) => ({ reviewer: r.reviewer.email, capacity: r.capacity, decision: r.decision })),
    })),
  };
}
