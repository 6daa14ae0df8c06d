import { cookies } from "next/headers";
import { getPrisma } from "@/lib/db/client";
import { isSameOrigin } from "@/lib/auth/same-origin";
import { SESSION_COOKIE, revokeSessionToken } from "@/lib/auth/session";
import { errorResponse } from "@/lib/auth/with-permission";

export async function POST(req: Request): Promise<Response> {
  if (!isSameOrigin(req.headers)) return errorResponse(403, "cross_origin", "sign-out must come from this site");
  const jar = await cookies();
  const token = jar.get(SESSION_COOKIE)?.value;
  if (token) await revokeSessionToken(getPrisma(), token);
  jar.delete(SESSION_COOKIE);
  return new Response(null, { status: 204 });
}
