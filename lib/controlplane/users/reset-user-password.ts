import { z } from "zod";
import type { PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { hashPassword, withPasswordSlot, ZNewPassword, refuseWeakPassword, type TRole } from "../../auth";
import { ContractError, notFound } from "../../errors";
import { PRIVILEGED_ROLES, lockUserRoles } from "./admin-count-rules";

function refusePrivileged(user: { email: string; roles: TRole[] }): void {
  const privileged = user.roles.filter((r) => PRIVILEGED_ROLES.includes(r));
  if (privileged.length === 0) return;
  throw new ContractError(
    "privileged_reset",
    `${user.email} holds ${privileged.join(", ")}: take those roles away first (a second admin confirms giving them back), so no admin can act as a reviewer`,
  );
}

export const ZResetPasswordBody = z.strictObject({
  password: ZNewPassword,
  reason: z.string().max(2000).optional(),
});

/**
 * An admin sets a new password for someone else (a forgotten password), signing them out
 * everywhere. Not for one's own account (change it instead, with the current password), and
 * not for someone holding admin, approver or compliance: whoever knows the new password can act
 * as that person, so one admin could approve their own change as a puppet reviewer. Taking those
 * roles away first applies at once; giving them back takes a second admin (role grants).
 */
export async function resetUserPassword(prisma: PrismaClient, actor: TActor, id: string, body: z.output<typeof ZResetPasswordBody>, now = new Date()) {
  if (actor.userId === id) throw new ContractError("own_account", "change your own password with your current one, not by a reset");
  const user = await prisma.user.findUnique({ where: { id }, select: { id: true, email: true, name: true, roles: true } });
  if (!user) throw notFound("user", id);
  refusePrivileged(user);
  refuseWeakPassword(body.password, { email: user.email, name: user.name });
  const passwordHash = await withPasswordSlot(() => hashPassword(body.password));
  return prisma.$transaction(async (tx) => {
    // Again under the role lock: a grant confirmed meanwhile must not slip past the check.
    await lockUserRoles(tx);
    refusePrivileged(await tx.user.findUniqueOrThrow({ where: { id }, select: { email: true, roles: true } }));
    await tx.user.update({ where: { id }, data: { passwordHash } });
    const revoked = await tx.session.updateMany({ where: { userId: id, revokedAt: null, expiresAt: { gt: now } }, data: { revokedAt: now } });
    await appendAudit(
      tx,
      actor,
      {
        action: "user.reset_password",
        targetType: "user",
        targetId: id,
        after: { email: user.email, sessionsRevoked: revoked.count },
        reason: body.reason ?? null,
      },
      now,
    );
    return { sessionsRevoked: revoked.count };
  });
}
