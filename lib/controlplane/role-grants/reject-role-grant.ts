import type { z } from "zod";
import type { PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import type { ZDecideRoleGrantBody } from "./confirm-role-grant";
import { ContractError, notFound } from "../../errors";
import { lockUserRoles } from "../users/admin-count-rules";

/** An admin turns a pending grant down (the one who asked may withdraw it); the user's roles stay as they are. */
export async function rejectRoleGrant(
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
    const decided = await tx.roleGrant.update({ where: { id: grantId }, data: { status: "rejected", decidedById: actor.userId, decidedAt: now } });
    await appendAudit(
      tx,
      actor,
      {
        action: "user.grant_reject",
        targetType: "user",
        targetId: grant.userId,
        before: { grantId, roles: grant.roles, status: "pending" },
        after: { grantId, status: "rejected" },
        reason: body.reason ?? null,
      },
      now,
    );
    return decided;
  });
}
