import type { PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { ContractError, notFound } from "../../errors";
import { lockUserRoles } from "./admin-count-rules";

/**
 * Lets a disabled account sign in again, with the roles it had (taking roles away is a separate,
 * earlier step when they should not come back). Its control keys work again with its permissions.
 */
export async function enableUser(prisma: PrismaClient, actor: TActor, id: string, reason: string | null, now = new Date()) {
  return prisma.$transaction(async (tx) => {
    await lockUserRoles(tx);
    const user = await tx.user.findUnique({ where: { id }, select: { email: true, disabledAt: true } });
    if (!user) throw notFound("user", id);
    if (!user.disabledAt) throw new ContractError("invalid_state", `${user.email} is not disabled`);
    await tx.user.update({ where: { id }, data: { disabledAt: null } });
    await appendAudit(
      tx,
      actor,
      {
        action: "user.enable",
        targetType: "user",
        targetId: id,
        before: { disabledAt: user.disabledAt.toISOString() },
        after: { email: user.email, disabledAt: null },
        reason,
      },
      now,
    );
    return { email: user.email };
  });
}
