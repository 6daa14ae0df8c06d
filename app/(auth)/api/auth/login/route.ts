import { z } from "zod";
import { getPrisma } from "@/lib/db/client";
import { clientIpOf } from "@/lib/auth/client-ip";
import { safeNextPath } from "@/lib/auth/current-user";
import { isHttps, isSameOrigin } from "@/lib/auth/same-origin";
import { SESSION_COOKIE, readCookie, sessionSetCookie } from "@/lib/auth/session";
import { signInAsDemoUser, signInWithPassword } from "@/lib/auth/sign-in";
import { refusal, refusalResponse } from "@/lib/auth/with-permission";
import { errorResponse as contractResponse, fromZod } from "@/lib/http/error-contract";

/** Where the client means to go next; answered back only as a path on this site (safeNextPath). */
const next = z.string().max(2048).optional();
const ZLoginBody = z.union([
  z.strictObject({ email: z.string().min(1), password: z.string().min(1), next }),
  /** Demo mode only: sign in as a passwordless demo user. */
  z.strictObject({ demoEmail: z.string().min(1), next }),
]);

/** JSON sign-in for scripts and e2e set-up; the login page uses the equivalent server actions. */
export async function POST(req: Request): Promise<Response> {
  // Login CSRF: a foreign page must not sign a victim into the attacker's account.
  if (!isSameOrigin(req.headers)) return refusal("cross_origin", "sign-in must come from this site");
  const parsed = ZLoginBody.safeParse(await req.json().catch(() => null));
  if (!parsed.success) return contractResponse(fromZod(parsed.error, 400, "give email and password (or demoEmail in demo mode)"));
  const meta = { ip: clientIpOf(req.headers), userAgent: req.headers.get("user-agent"), previousToken: readCookie(req.headers.get("cookie"), SESSION_COOKIE) };
  const prisma = getPrisma();
  let session;
  try {
    session =
      "demoEmail" in parsed.data
        ? await signInAsDemoUser(prisma, parsed.data.demoEmail, meta)
        : await signInWithPassword(prisma, parsed.data.email, parsed.data.password, meta);
  } catch (err) {
    // 429 from the throttle (with Retry-After), 503 when the database cannot start a transaction in time.
    const refused = refusalResponse(err);
    if (refused) return refused;
    throw err;
  }
  if (!session) return refusal("invalid_credentials", "wrong email or password");
  return Response.json(
    { expiresAt: session.expiresAt, next: safeNextPath(parsed.data.next) },
    { headers: { "set-cookie": sessionSetCookie(session.token, session.expiresAt, isHttps(req.headers, req.url)) } },
  );
}
