import { z } from "zod";
import type { PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { ROLES } from "../../auth";
import { ContractError, notFound } from "../../errors";
import { countAdmins, lockUserRoles, refuseOwnRoles, splitGrant } from "./admin-count-rules";

export const ZSetUserRolesBody = z.strictObject({
  roles: z.array(z.enum(ROLES)),
  reason: z.string().max(2000).optional(),
});

/**
 * Replaces a user's roles. Nobody changes their own. The last admin keeps theirs, so the
 * instance stays administrable. While two or more admins exist, the privileged roles this adds
 * (admin, approver, compliance) wait in a pending grant for another admin to confirm
 * (confirmRoleGrant); everything else applies at once. With a single admin everything applies
 * at once and the audit entry says single_admin, as does the grant row the access page lists.
 */
export async function setUserRoles(prisma: PrismaClient, actor: TActor, id: string, body: z.output<typeof ZSetUserRolesBody>, now = new Date()) {
  return prisma.$transaction(async (tx) => {
    await lockUserRoles(tx);
    refuseOwnRoles(actor, id);
    const before = await tx.user.findUnique({ where: { id }, omit: { passwordHash: true } });
    if (!before) throw notFound("user", id);
    const admins = await countAdmins(tx);
    const singleAdmin = admins < 2;
    const split = splitGrant(before.roles, body.roles, !singleAdmin);
    if (before.roles.includes("admin") && !split.now.includes("admin") && admins <= 1 && !before.demo) {
      throw new ContractError("last_admin", "this is the last admin; make someone else admin first");
    }
    // A later change for the same user replaces a grant still waiting: the newest request is the one to confirm.
    const superseded = await tx.roleGrant.updateMany({
      where: { userId: id, status: "pending" },
      data: { status: "superseded", decidedById: actor.userId, decidedAt: now },
    });
    const user = await tx.user.update({ where: { id }, data: { roles: split.now }, omit: { passwordHash: true } });
    const grant =
      split.added.length === 0
        ? null
        : await tx.roleGrant.create({
            data: {
              userId: id,
              roles: split.added,
              status: singleAdmin ? "applied" : "pending",
              singleAdmin,
              requestedById: actor.userId,
              requestedAt: now,
              reason: body.reason ?? null,
              ...(singleAdmin ? { decidedAt: now } : {}),
            },
          });
    await appendAudit(
      tx,
      actor,
      {
        action: "user.set_roles",
        targetType: "user",
        targetId: id,
        before: { roles: before.roles },
        after: {
          roles: user.roles,
          ...(grant?.status === "pending" ? { pendingGrant: { id: grant.id, roles: grant.roles } } : {}),
          ...(superseded.count > 0 ? { supersededGrants: superseded.count } : {}),
          ...(singleAdmin ? { single_admin: true } : {}),
        },
        reason: body.reason ?? null,
      },
      now,
    );
    return { user, pendingGrant: grant?.status === "pending" ? grant : null };
  });
}
