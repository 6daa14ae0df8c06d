import type { PrismaClient } from "../../db";

/**
 * Keys with their owner (the person whose current permissions a control key acts with, null
 * for keys the operator's tools made) and when each was last used.
 */
export async function listApiKeys(prisma: PrismaClient) {
  const keys = await prisma.apiKey.findMany({ orderBy: { createdAt: "desc" }, omit: { keyHash: true } });
  const ownerIds = [...new Set(keys.map((k) => k.createdById).filter((id): id is string => id !== null))];
  const owners = await prisma.user.findMany({ where: { id: { in: ownerIds } }, select: { id: true, email: true, disabledAt: true } });
  const by = new Map(owners.map((o) => [o.id, o]));
  return keys.map((k) => {
    const o = k.createdById ? by.get(k.createdById) : undefined;
    return { ...k, owner: o ? { email: o.email, disabled: o.disabledAt !== null } : null };
  });
}
