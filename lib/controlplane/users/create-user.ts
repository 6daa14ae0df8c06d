import { z } from "zod";
import type { PrismaClient } from "../../db";
import { type TActor, appendAudit } from "../../audit";
import { hashPassword, ZNewPassword, refuseWeakPassword, ROLES } from "../../auth";
import { ContractError, isUniqueViolation } from "../../errors";
import { countAdmins, lockUserRoles, splitGrant } from "./admin-count-rules";

export const ZCreateUserBody = z.strictObject({
  email: z.email("email must be an email address").transform((e) => e.toLowerCase()),
  name: z.string().trim().min(1, "name must not be empty").max(200),
  password: ZNewPassword,
  roles: z.array(z.enum(ROLES)).min(1, "give at least one role"),
});

/**
 * Creates an account. As with setUserRoles, while two or more admins exist its privileged
 * roles wait in a pending grant for a second admin; with one admin they apply at once and the
 * audit entry says single_admin. `bootstrap` (the operator's CLI and the first admin from the
 * environment, which run with database access anyway) applies every role at once.
 */
export async function createUser(prisma: PrismaClient, actor: TActor, body: z.output<typeof ZCreateUserBody>, opts: { bootstrap?: boolean } = {}) {
  refuseWeakPassword(body.password, { email: body.email, name: body.name });
  const passwordHash = await hashPassword(body.password);
  try {
    return await prisma.$transaction(async (tx) => {
      await lockUserRoles(tx);
      const singleAdmin = (await countAdmins(tx)) < 2;
      const split = splitGrant([], body.roles, !singleAdmin && !opts.bootstrap);
      const now = new Date();
      const user = await tx.user.create({
        data: { email: body.email, name: body.name, passwordHash, roles: split.now },
        omit: { passwordHash: true },
      });
      const pending = split.held.length > 0;
      const grant =
        split.added.length === 0
          ? null
          : await tx.roleGrant.create({
              data: {
                userId: user.id,
                roles: split.added,
                status: pending ? "pending" : "applied",
                singleAdmin,
                requestedById: actor.userId,
                requestedAt: now,
                ...(pending ? {} : { decidedAt: now }),
              },
            });
      await appendAudit(tx, actor, {
        action: "user.create",
        targetType: "user",
        targetId: user.id,
        after: { ...user, ...(pending && grant ? { pendingGrant: { id: grant.id, roles: grant.roles } } : {}), ...(singleAdmin ? { single_admin: true } : {}) },
      });
      return { user, pendingGrant: pending ? grant : null };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ContractError("email_taken", `a user with email ${body.email} already exists`);
    throw err;
  }
}
