import { getPrisma } from "@/lib/db/client";
import { clientIpOf } from "@/lib/auth/client-ip";
import { isHttps, isSameOrigin } from "@/lib/auth/same-origin";
import { SESSION_COOKIE, clearSessionSetCookie, readCookie } from "@/lib/auth/session";
import { signOut } from "@/lib/auth/sign-out";
import { refusal } from "@/lib/auth/with-permission";

export async function POST(req: Request): Promise<Response> {
  if (!isSameOrigin(req.headers)) return refusal("cross_origin", "sign-out must come from this site");
  const token = readCookie(req.headers.get("cookie"), SESSION_COOKIE);
  if (token) await signOut(getPrisma(), token, { ip: clientIpOf(req.headers) });
  return new Response(null, { status: 204, headers: { "set-cookie": clearSessionSetCookie(isHttps(req.headers, req.url)) } });
}
