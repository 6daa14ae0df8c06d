import { z } from "zod";
import type { PrismaClient } from "../db/generated/client";
import type { TActor } from "../audit/actor";
import { appendAudit } from "../audit/append-audit";
import { ROLES } from "../auth/permissions";
import { ControlPlaneError, notFound } from "./errors";

export const ZSetUserRolesBody = z.strictObject({
  roles: z.array(z.enum(ROLES)),
  reason: z.string().max(2000).optional(),
});

/** Replaces a user's roles. The last admin keeps theirs, so the instance stays administrable. */
export async function setUserRoles(prisma: PrismaClient, actor: TActor, id: string, body: z.output<typeof ZSetUserRolesBody>) {
  return prisma.$transaction(async (tx) => {
    // Serialise role changes so two admins demoting each other cannot both pass the check.
    await tx.$executeRaw`select pg_advisory_xact_lock(hashtext('switchyard:user_roles'))`;
    const before = await tx.user.findUnique({ where: { id }, omit: { passwordHash: true } });
    if (!before) throw notFound("user", id);
    const roles = [...new Set(body.roles)];
    if (before.roles.includes("admin") && !roles.includes("admin")) {
      const admins = await tx.user.count({ where: { roles: { has: "admin" }, disabledAt: null, demo: false } });
      if (admins <= 1 && !before.demo) throw new ControlPlaneError(409, "last_admin", "this is the last admin; make someone else admin first");
    }
    const after = await tx.user.update({ where: { id }, data: { roles }, omit: { passwordHash: true } });
    await appendAudit(tx, actor, { action: "user.set_roles", targetType: "user", targetId: id, before: { roles: before.roles }, after: { roles: after.roles }, reason: body.reason ?? null });
    return after;
  });
}
