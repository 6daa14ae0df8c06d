import type { PrismaClient, RoleGrantStatus } from "../../db";

/**
 * Privileged role grants, newest first, with the emails of the user, the admin who asked and
 * the one who decided: pending ones wait for a second admin; applied ones with singleAdmin
 * took effect while only one admin existed.
 */
export async function listRoleGrants(prisma: PrismaClient, filter: { status?: RoleGrantStatus; limit?: number } = {}) {
  const grants = await prisma.roleGrant.findMany({
    where: filter.status ? { status: filter.status } : {},
    orderBy: { requestedAt: "desc" },
    take: Math.min(filter.limit ?? 100, 500),
    include: { user: { select: { email: true } } },
  });
  const ids = [...new Set(grants.flatMap((g) => [g.requestedById, g.decidedById]).filter((id): id is string => id !== null))];
  const people = new Map((await prisma.user.findMany({ where: { id: { in: ids } }, select: { id: true, email: true } })).map((u) => [u.id, u.email]));
  return grants.map(({ user, ...g }) => ({
    ...g,
    userEmail: user.email,
    requestedBy: g.requestedById ? (people.get(g.requestedById) ?? null) : "bootstrap",
    decidedBy: g.decidedById ? (people.get(g.decidedById) ?? null) : null,
  }));
}
