import { z } from "zod";
import type { Prisma, PrismaClient } from "../db";

export const ZAuditQuery = z.strictObject({
  action: z.string().min(1).optional(),
  actor: z.string().min(1).optional(),
  targetType: z.string().min(1).optional(),
  targetId: z.string().min(1).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  /** Entries with seq below this (newest first paging). */
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(100),
});
export type TAuditQuery = z.infer<typeof ZAuditQuery>;

export async function listAudit(prisma: Pick<PrismaClient, "auditEntry">, q: TAuditQuery) {
  const where: Prisma.AuditEntryWhereInput = {
    ...(q.action ? { action: q.action } : {}),
    ...(q.actor ? { actor: q.actor } : {}),
    ...(q.targetType ? { targetType: q.targetType } : {}),
    ...(q.targetId ? { targetId: q.targetId } : {}),
    ...(q.from || q.to ? { at: { ...(q.from ? { gte: new Date(q.from) } : {}), ...(q.to ? { lt: new Date(q.to) } : {}) } } : {}),
    ...(q.before ? { seq: { lt: q.before } } : {}),
  };
  return prisma.auditEntry.findMany({ where, orderBy: { seq: "desc" }, take: q.limit });
}
