import { z } from "zod";
import type { PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { ContractError, notFound } from "../../errors";
import { lockUserRoles, refuseOwnRoles } from "../users/admin-count-rules";

export const ZDecideRoleGrantBody = z.strictObject({ reason: z.string().max(2000).optional() });

/**
 * A second admin confirms a pending grant: its roles are added to the user's current ones.
 * Neither the admin who asked for it nor the user who gets it may confirm it.
 */
export async function confirmRoleGrant(
  prisma: PrismaClient,
  actor: TActor,
  grantId: string,
  body: z.output<typeof ZDecideRoleGrantBody> = {},
  now = new Date(),
) {
  return prisma.$transaction(async (tx) => {
    await lockUserRoles(tx);
    const grant = await tx.roleGrant.findUnique({ where: { id: grantId } });
    if (!grant) throw notFound("role grant", grantId);
    if (grant.status !== "pending") throw new ContractError("grant_not_pending", `this grant is ${grant.status}, not pending`);
    refuseOwnRoles(actor, grant.userId);
    if (!actor.userId || actor.userId === grant.requestedById) {
      throw new ContractError("four_eyes", "you asked for this grant; another admin must confirm it");
    }
    const before = await tx.user.findUniqueOrThrow({ where: { id: grant.userId }, omit: { passwordHash: true } });
    const user = await tx.user.update({
      where: { id: grant.userId },
      data: { roles: [...new Set([...before.roles, ...grant.roles])] },
      omit: { passwordHash: true },
    });
    const decided = await tx.roleGrant.update({ where: { id: grantId }, data: { status: "confirmed", decidedById: actor.userId, decidedAt: now } });
    await appendAudit(
      tx,
      actor,
      {
        action: "user.grant_confirm",
        targetType: "user",
        targetId: user.id,
        before: { roles: before.roles },
        after: { roles: user.roles, grantId, granted: grant.roles, requestedById: grant.requestedById },
        reason: body.reason ?? null,
      },
      now,
    );
    return { user, grant: decided };
  });
}
