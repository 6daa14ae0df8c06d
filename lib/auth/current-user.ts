import type { PrismaClient } from "../db/generated/client";
import { SESSION_COOKIE, readCookie, resolveSession, type TUserPrincipal } from "./session";

/** The signed-in user for a raw Request (route handlers), or null. */
export function currentUser(prisma: PrismaClient, req: Request): Promise<TUserPrincipal | null> {
  return resolveSession(prisma, readCookie(req.headers.get("cookie"), SESSION_COOKIE));
}

/** Only same-site paths: "/x" yes, "//evil.example" and "https://…" no (open redirects). */
export function safeNextPath(next: unknown): string {
  return typeof next === "string" && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}
