import type { PrismaClient } from "../db";
import { type TActor, appendAudit } from "../audit";
import { isDemoMode } from "./demo-mode";
import { dummyPasswordHash, verifyPassword, withPasswordSlot } from "./password";
import { createSession, revokeSessionToken } from "./session";
import { signInThrottle, type TSignInAttempt, type TSignInThrottle, type TThrottleNote } from "./sign-in-throttle";

type TMeta = {
  ip?: string | null;
  userAgent?: string | null;
  /** The session cookie the browser sent with the sign-in, if any: revoked, never reused (session fixation). */
  previousToken?: string | null;
};
export type TSignIn = { token: string; expiresAt: Date } | null;

/** What a failed attempt's audit entry keeps of the typed email: enough to spot a pattern, not a pasted password. */
const MAX_ATTEMPTED_EMAIL = 120;

type TFailure = "unknown_account" | "wrong_password" | "no_password" | "disabled" | "not_demo_mode" | "not_a_demo_user";

/**
 * One entry per failure that got as far as a password check; attempts refused by the throttle
 * write nothing and are counted in the next entry for their address or account
 * (refusedWhileThrottled), so a flood cannot queue on the audit chain's lock.
 */
async function recordFailure(
  prisma: PrismaClient,
  attempted: string,
  userId: string | null,
  reason: TFailure,
  method: "password" | "demo",
  meta: TMeta,
  note: TThrottleNote,
) {
  // Whoever typed it is not known to be the account's owner: the account is the target, not the actor.
  const actor: TActor = { userId: null, label: attempted.slice(0, MAX_ATTEMPTED_EMAIL) || "(empty)", ip: meta.ip ?? null };
  await prisma.$transaction((tx) =>
    appendAudit(tx, actor, { action: "auth.sign_in_failed", targetType: "user", targetId: userId, after: { method, reason, ...note } }),
  );
}

/**
 * A fresh random token on every sign-in, created with its audit entry in one transaction; a
 * session the browser already carried is revoked in the same transaction.
 */
async function startSession(
  prisma: PrismaClient,
  user: { id: string; email: string },
  method: "password" | "demo",
  meta: TMeta,
  note: TThrottleNote,
): Promise<TSignIn> {
  return prisma.$transaction(async (tx) => {
    if (meta.previousToken) await revokeSessionToken(tx, meta.previousToken);
    const session = await createSession(tx, user.id, meta);
    await appendAudit(
      tx,
      { userId: user.id, label: user.email, ip: meta.ip ?? null },
      {
        action: "auth.sign_in",
        targetType: "session",
        targetId: session.sessionId,
        after: { method, expiresAt: session.expiresAt, ...note },
      },
    );
    return { token: session.token, expiresAt: session.expiresAt };
  });
}

/** Runs a sign-in under the throttle; an error before the outcome is known gives the attempt back. */
async function throttled(throttle: TSignInThrottle, account: string, meta: TMeta, run: (attempt: TSignInAttempt) => Promise<TSignIn>): Promise<TSignIn> {
  const attempt = throttle.begin(account, meta.ip ?? null);
  try {
    await attempt.confirm();
    return await run(attempt);
  } catch (err) {
    attempt.abandoned();
    throw err;
  }
}

/**
 * Email + password; every failure looks the same to the caller (no account enumeration), the
 * audit log says which it was. The throttle answers first (ContractError 429 with
 * retryAfterSeconds), before the database or argon2 is touched.
 */
export async function signInWithPassword(
  prisma: PrismaClient,
  email: string,
  password: string,
  meta: TMeta = {},
  throttle = signInThrottle(prisma),
): Promise<TSignIn> {
  const normalised = email.trim().toLowerCase();
  return throttled(throttle, normalised, meta, async (attempt) => {
    const { user, ok } = await withPasswordSlot(async () => {
      const found = await prisma.user.findUnique({ where: { email: normalised } });
      return { user: found, ok: await verifyPassword(found?.passwordHash ?? (await dummyPasswordHash()), password) };
    });
    const failure: TFailure | null = !user
      ? "unknown_account"
      : !user.passwordHash
        ? "no_password"
        : !ok
          ? "wrong_password"
          : user.disabledAt
            ? "disabled"
            : null;
    if (failure || !user) {
      await recordFailure(prisma, normalised, user?.id ?? null, failure ?? "unknown_account", "password", meta, attempt.failed());
      return null;
    }
    return startSession(prisma, user, "password", meta, attempt.succeeded());
  });
}

/** One-click sign-in as a passwordless demo user, refused outside demo mode (and throttled like a password, since a refusal is audited). */
export async function signInAsDemoUser(prisma: PrismaClient, email: string, meta: TMeta = {}, throttle = signInThrottle(prisma)): Promise<TSignIn> {
  return throttled(throttle, email, meta, async (attempt) => {
    if (!isDemoMode()) {
      await recordFailure(prisma, email, null, "not_demo_mode", "demo", meta, attempt.failed());
      return null;
    }
    const user = await prisma.user.findUnique({ where: { email } });
    const failure: TFailure | null = !user ? "unknown_account" : !user.demo ? "not_a_demo_user" : user.disabledAt ? "disabled" : null;
    if (failure || !user) {
      await recordFailure(prisma, email, user?.id ?? null, failure ?? "unknown_account", "demo", meta, attempt.failed());
      return null;
    }
    return startSession(prisma, user, "demo", meta, attempt.succeeded());
  });
}
