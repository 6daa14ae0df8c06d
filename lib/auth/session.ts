import type { PrismaClient } from "../db";
import type { TRole } from "./permissions";
import { randomToken, sha256Hex } from "./tokens";

export const SESSION_COOKIE = "sy_session";
/** Absolute lifetime: a stolen cookie stops working within a working day even if unnoticed. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export type TUserPrincipal = {
  kind: "user";
  userId: string;
  email: string;
  name: string;
  roles: TRole[];
  sessionId: string;
};

type TDb = Pick<PrismaClient, "session">;

export async function createSession(
  prisma: TDb,
  userId: string,
  meta: { ip?: string | null; userAgent?: string | null } = {},
  now = new Date(),
): Promise<{ token: string; expiresAt: Date; sessionId: string }> {
  const token = randomToken();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  const row = await prisma.session.create({
    data: { tokenHash: sha256Hex(token), userId, expiresAt, ip: meta.ip ?? null, userAgent: meta.userAgent?.slice(0, 400) ?? null },
  });
  return { token, expiresAt, sessionId: row.id };
}

/** The signed-in user for a cookie token, or null when expired, revoked or the user is disabled. */
export async function resolveSession(prisma: TDb, token: string | null | undefined, now = new Date()): Promise<TUserPrincipal | null> {
  if (!token) return null;
  const row = await prisma.session.findUnique({ where: { tokenHash: sha256Hex(token) }, include: { user: true } });
  if (!row || row.revokedAt || row.expiresAt <= now || row.user.disabledAt) return null;
  return { kind: "user", userId: row.user.id, email: row.user.email, name: row.user.name, roles: row.user.roles, sessionId: row.id };
}

export async function revokeSessionToken(prisma: TDb, token: string, now = new Date()): Promise<void> {
  await prisma.session.updateMany({ where: { tokenHash: sha256Hex(token), revokedAt: null }, data: { revokedAt: now } });
}

/** Reads one cookie from a Cookie header (route handlers get the raw Request). */
export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    // A malformed escape is a bad token (no session), not a server error.
    try {
      return decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return null;
    }
  }
  return null;
}

export function sessionCookieOptions(secure: boolean, expiresAt: Date) {
  return { httpOnly: true, sameSite: "lax" as const, secure, path: "/", expires: expiresAt };
}

/**
 * The Set-Cookie value for a route handler's own response, with the same attributes as
 * sessionCookieOptions (HttpOnly, SameSite=Lax, Path=/, Secure behind https), so handlers do
 * not depend on next/headers and their cookies can be checked on the Response itself.
 */
export function sessionSetCookie(token: string, expiresAt: Date, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${encodeURIComponent(token)}`,
    "Path=/",
    `Expires=${expiresAt.toUTCString()}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

/** Expires the session cookie in the browser. */
export function clearSessionSetCookie(secure: boolean): string {
  return [`${SESSION_COOKIE}=`, "Path=/", "Expires=Thu, 01 Jan 1970 00:00:00 GMT", "Max-Age=0", "HttpOnly", "SameSite=Lax", ...(secure ? ["Secure"] : [])].join(
    "; ",
  );
}
