import { z } from "zod";
import type { PrismaClient } from "../../db";

export const ZListVersionsQuery = z.strictObject({
  operation: z.string().min(1).optional(),
  status: z.enum(["draft", "in_review", "approved", "rejected", "active", "shadow", "superseded"]).optional(),
});

/** Versions newest first, without their documents (fetch one version for that). */
export async function listFactorListVersions(prisma: PrismaClient, q: z.output<typeof ZListVersionsQuery>) {
  return prisma.factorListVersion.findMany({
    where: { ...(q.operation ? { operationKey: q.operation } : {}), ...(q.status ? { status: q.status } : {}) },
    orderBy: [{ operationKey: "asc" }, { version: "desc" }],
    omit: { document: true, yaml: true },
  });
}
