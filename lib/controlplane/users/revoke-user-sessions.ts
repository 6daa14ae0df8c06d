import type { PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { notFound } from "../../errors";

/** Signs a user out everywhere (a lost laptop, a departure); they can sign in again. */
export async function revokeUserSessions(prisma: PrismaClient, actor: TActor, id: string, reason: string | null, now = new Date()) {
  return prisma.$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id }, select: { id: true, email: true } });
    if (!user) throw notFound("user", id);
    const res = await tx.session.updateMany({ where: { userId: id, revokedAt: null, expiresAt: { gt: now } }, data: { revokedAt: now } });
    await appendAudit(
      tx,
      actor,
      { action: "user.revoke_sessions", targetType: "user", targetId: id, after: { email: user.email, sessionsRevoked: res.count }, reason },
      now,
    );
    return { revoked: res.count };
  });
}
