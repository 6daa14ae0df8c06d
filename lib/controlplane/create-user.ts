import { z } from "zod";
import type { PrismaClient } from "../db/generated/client";
import type { TActor } from "../audit/actor";
import { appendAudit } from "../audit/append-audit";
import { MIN_PASSWORD_LENGTH, hashPassword } from "../auth/password";
import { ROLES } from "../auth/permissions";
import { ControlPlaneError, isUniqueViolation } from "./errors";

export const ZCreateUserBody = z.strictObject({
  email: z.email("email must be an email address").transform((e) => e.toLowerCase()),
  name: z.string().trim().min(1, "name must not be empty").max(200),
  password: z.string().min(MIN_PASSWORD_LENGTH, `password must have at least ${MIN_PASSWORD_LENGTH} characters`).max(1000),
  roles: z.array(z.enum(ROLES)).min(1, "give at least one role"),
});

export async function createUser(prisma: PrismaClient, actor: TActor, body: z.output<typeof ZCreateUserBody>) {
  const passwordHash = await hashPassword(body.password);
  try {
    return await prisma.$transaction(async (tx) => {
      const user = await tx.user.create({
        data: { email: body.email, name: body.name, passwordHash, roles: [...new Set(body.roles)] },
        omit: { passwordHash: true },
      });
      await appendAudit(tx, actor, { action: "user.create", targetType: "user", targetId: user.id, after: user });
      return user;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ControlPlaneError(409, "email_taken", `a user with email ${body.email} already exists`);
    throw err;
  }
}
