import { z } from "zod";
import type { PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { ContractError, notFound } from "../../errors";
import { countAdmins, lockUserRoles } from "./admin-count-rules";

export const ZDisableUserBody = z.strictObject({ reason: z.string().max(2000).optional() });

/**
 * Disables an account (a departure, a compromise): it can no longer sign in, its sessions are
 * revoked, and the control keys it created stop at their next call (they act with their owner's
 * current permissions, lib/auth/api-key-owner.ts). Its data-plane keys keep serving their
 * services, so offboarding a person does not take routing down; the audit entry and the access
 * page list them, for an admin to rotate. Not oneself, and not the last admin.
 */
export async function disableUser(prisma: PrismaClient, actor: TActor, id: string, body: z.output<typeof ZDisableUserBody>, now = new Date()) {
  if (actor.userId === id) throw new ContractError("own_account", "nobody disables their own account: ask another admin");
  return prisma.$transaction(async (tx) => {
    await lockUserRoles(tx);
    const user = await tx.user.findUnique({ where: { id }, select: { id: true, email: true, roles: true, disabledAt: true, demo: true } });
    if (!user) throw notFound("user", id);
    if (user.disabledAt) throw new ContractError("invalid_state", `${user.email} is already disabled`);
    if (user.roles.includes("admin") && !user.demo && (await countAdmins(tx)) <= 1) {
      throw new ContractError("last_admin", "this is the last admin; make someone else admin first");
    }
    await tx.user.update({ where: { id }, data: { disabledAt: now } });
    const sessions = await tx.session.updateMany({ where: { userId: id, revokedAt: null, expiresAt: { gt: now } }, data: { revokedAt: now } });
    const keys = await tx.apiKey.findMany({ where: { createdById: id, revokedAt: null }, select: { prefix: true, scopes: true } });
    const controlKeysStopped = keys.filter((k) => k.scopes.includes("control")).map((k) => k.prefix);
    const dataPlaneKeysKept = keys.filter((k) => !k.scopes.includes("control")).map((k) => k.prefix);
    const after = { email: user.email, disabledAt: now.toISOString(), sessionsRevoked: sessions.count, controlKeysStopped, dataPlaneKeysKept };
    await appendAudit(
      tx,
      actor,
      { action: "user.disable", targetType: "user", targetId: id, before: { disabledAt: null }, after, reason: body.reason ?? null },
      now,
    );
    return after;
  });
}
