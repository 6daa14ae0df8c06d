import type { PrismaClient } from "../../db";
import type { TActor } from "../../audit";
import { createUser, ZCreateUserBody } from "./create-user";
import { parseInput } from "../../errors";

const BOOTSTRAP: TActor = { userId: null, label: "bootstrap", ip: null };

/** Creates an admin account (the CLI, and the first admin from the environment at boot). */
export async function createAdmin(prisma: PrismaClient, input: { email: string; password: string; name?: string }) {
  const body = parseInput(ZCreateUserBody, { email: input.email, name: input.name ?? input.email.split("@")[0], password: input.password, roles: ["admin"] });
  return (await createUser(prisma, BOOTSTRAP, body, { bootstrap: true })).user;
}

/**
 * SWITCHYARD_ADMIN_EMAIL + SWITCHYARD_ADMIN_PASSWORD create the first admin, once: when any
 * non-demo admin exists, nothing happens, so a restart with the variables still set (or a
 * changed password in them) never resets an account.
 */
export async function ensureAdminFromEnv(prisma: PrismaClient, env: Record<string, string | undefined> = process.env): Promise<string | null> {
  const email = env.SWITCHYARD_ADMIN_EMAIL;
  const password = env.SWITCHYARD_ADMIN_PASSWORD;
  if (!email || !password) return null;
  if ((await prisma.user.count({ where: { roles: { has: "admin" }, demo: false } })) > 0) return null;
  const user = await createAdmin(prisma, { email, password });
  return user.email;
}
