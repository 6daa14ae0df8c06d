import type { PrismaClient } from "../db";
import { invalid } from "../errors";
import { changeSummary } from "./compliance-hold";

const STATUSES = ["pending", "applied", "rejected", "superseded"] as const;

/** Catalogue changes held for compliance, newest first (at most 200); `status` filters. */
export async function listCatalogChanges(prisma: PrismaClient, status: string | null) {
  if (status !== null && !(STATUSES as readonly string[]).includes(status)) {
    throw invalid([{ path: "status", message: `must be one of ${STATUSES.join(", ")}` }]);
  }
  const rows = await prisma.catalogChange.findMany({
    where: status ? { status: status as (typeof STATUSES)[number] } : {},
    orderBy: { requestedAt: "desc" },
    take: 200,
  });
  return rows.map(changeSummary);
}
