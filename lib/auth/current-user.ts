import type { PrismaClient } from "../db";
import { SESSION_COOKIE, readCookie, resolveSession, type TUserPrincipal } from "./session";

/** The signed-in user for a raw Request (route handlers), or null. */
export function currentUser(prisma: PrismaClient, req: Request): Promise<TUserPrincipal | null> {
  return resolveSession(prisma, readCookie(req.headers.get("cookie"), SESSION_COOKIE));
}

const PLACEHOLDER_ORIGIN = "http://x.invalid";

/**
 * Where to go after sign-in: only a path on this site, as a browser would resolve it.
 * Browsers drop tabs and newlines from URLs and read a backslash as a slash, so "/\t/evil",
 * "/\\evil" and "\\/evil" all mean "//evil" (another host): anything with a control
 * character or a backslash is refused outright, and what is left must resolve, against a
 * placeholder origin, to that same origin. The answer is the normalised path, never the input.
 */
export function safeNextPath(next: unknown): string {
  if (typeof next !== "string" || next.length === 0 || next.length > 2048) return "/";
  // C0 controls, DEL, C1 controls, and the backslash.
  if (/[\u0000-\u001f\u007f-\u009f\\]/.test(next)) return "/";
  if (!next.startsWith("/") || next.startsWith("//")) return "/";
  let url: URL;
  try {
    url = new URL(next, PLACEHOLDER_ORIGIN);
  } catch {
    return "/";
  }
  if (url.origin !== PLACEHOLDER_ORIGIN) return "/";
  const path = `${url.pathname}${url.search}${url.hash}`;
  // A path that normalises to "//host" (e.g. "/.//host") would be read by the browser as another host.
  return path.startsWith("/") && !path.startsWith("//") ? path : "/";
}
