import type { PrismaClient } from "../db/generated/client";
import { isDemoMode } from "./demo-mode";
import { dummyPasswordHash, verifyPassword } from "./password";
import { createSession } from "./session";

type TMeta = { ip?: string | null; userAgent?: string | null };
export type TSignIn = { token: string; expiresAt: Date } | null;

/** Email + password; every failure looks the same to the caller (no account enumeration). */
export async function signInWithPassword(prisma: PrismaClient, email: string, password: string, meta: TMeta = {}): Promise<TSignIn> {
  const user = await prisma.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  const ok = await verifyPassword(user?.passwordHash ?? (await dummyPasswordHash()), password);
  if (!user || !user.passwordHash || !ok || user.disabledAt) return null;
  return createSession(prisma, user.id, meta);
}

/** One-click sign-in as a passwordless demo user, refused outside demo mode. */
export async function signInAsDemoUser(prisma: PrismaClient, email: string, meta: TMeta = {}): Promise<TSignIn> {
  if (!isDemoMode()) return null;
  const user = await prisma.user.findUnique({ where: { email } });
  if (!user || !user.demo || user.disabledAt) return null;
  return createSession(prisma, user.id, meta);
}
