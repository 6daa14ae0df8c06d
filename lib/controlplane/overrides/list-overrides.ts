import { z } from "zod";
import type { PrismaClient } from "../../db";

export const ZListOverridesQuery = z.strictObject({
  state: z.enum(["active", "ended", "all"]).default("active"),
  operation: z.string().min(1).optional(),
});

export async function listOverrides(prisma: PrismaClient, q: z.output<typeof ZListOverridesQuery>, now = new Date()) {
  const state =
    q.state === "active"
      ? { endedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] }
      : q.state === "ended"
        ? { OR: [{ endedAt: { not: null } }, { expiresAt: { lte: now } }] }
        : {};
  return prisma.override.findMany({ where: { ...state, ...(q.operation ? { operationKey: q.operation } : {}) }, orderBy: { createdAt: "desc" }, take: 500 });
}
