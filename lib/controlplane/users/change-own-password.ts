import { z } from "zod";
import type { PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { hashPassword, verifyPassword, withPasswordSlot, ZNewPassword, refuseWeakPassword } from "../../auth";
import { ContractError, invalid, notFound } from "../../errors";

export const ZChangeOwnPasswordBody = z.strictObject({
  currentPassword: z.string().min(1, "type your current password").max(1000),
  newPassword: ZNewPassword,
});

/**
 * Changes the signed-in person's own password. The current password is required (a session
 * left open on a shared screen must not be enough to take the account), the new one passes the
 * policy, and every other session of the account is signed out. Audited without either password.
 */
export async function changeOwnPassword(
  prisma: PrismaClient,
  actor: TActor,
  sessionId: string,
  body: z.output<typeof ZChangeOwnPasswordBody>,
  now = new Date(),
) {
  if (!actor.userId) throw new ContractError("forbidden", "only a signed-in person has a password to change");
  const user = await prisma.user.findUnique({ where: { id: actor.userId }, select: { id: true, email: true, name: true, passwordHash: true } });
  if (!user) throw notFound("user", actor.userId);
  const current = user.passwordHash;
  const ok = current !== null && (await withPasswordSlot(() => verifyPassword(current, body.currentPassword)));
  if (!ok)
    throw new ContractError("invalid_credentials", "the current password is wrong", [{ path: "currentPassword", message: "wrong password" }], { status: 403 });
  if (body.newPassword === body.currentPassword) throw invalid([{ path: "newPassword", message: "choose a password different from the current one" }]);
  refuseWeakPassword(body.newPassword, { email: user.email, name: user.name }, "newPassword");
  const passwordHash = await withPasswordSlot(() => hashPassword(body.newPassword));
  return prisma.$transaction(async (tx) => {
    await tx.user.update({ where: { id: user.id }, data: { passwordHash } });
    const others = await tx.session.updateMany({
      where: { userId: user.id, revokedAt: null, expiresAt: { gt: now }, id: { not: sessionId } },
      data: { revokedAt: now },
    });
    await appendAudit(
      tx,
      actor,
      { action: "user.change_password", targetType: "user", targetId: user.id, after: { email: user.email, otherSessionsRevoked: others.count } },
      now,
    );
    return { otherSessionsRevoked: others.count };
  });
}
