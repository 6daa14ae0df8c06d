import type { PrismaClient } from "../db";
import { appendAudit } from "../audit";
import { sha256Hex } from "./tokens";

/**
 * Revokes the session behind a cookie token and records who signed out. An unknown, expired
 * or already revoked token changes nothing and records nothing.
 */
export async function signOut(prisma: PrismaClient, token: string, meta: { ip?: string | null } = {}, now = new Date()): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const row = await tx.session.findUnique({ where: { tokenHash: sha256Hex(token) }, include: { user: { select: { id: true, email: true } } } });
    if (!row || row.revokedAt || row.expiresAt <= now) return false;
    // Two sign-outs racing: only the one that revokes records it.
    const revoked = await tx.session.updateMany({ where: { id: row.id, revokedAt: null }, data: { revokedAt: now } });
    if (revoked.count === 0) return false;
    await appendAudit(
      tx,
      { userId: row.user.id, label: row.user.email, ip: meta.ip ?? null },
      { action: "auth.sign_out", targetType: "session", targetId: row.id },
    );
    return true;
  });
}
