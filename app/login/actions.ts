"use server";

import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { getPrisma } from "@/lib/db/client";
import { clientIpOf } from "@/lib/auth/client-ip";
import { safeNextPath } from "@/lib/auth/current-user";
import { isHttps } from "@/lib/auth/same-origin";
import { SESSION_COOKIE, sessionCookieOptions } from "@/lib/auth/session";
import { signInAsDemoUser, signInWithPassword, type TSignIn } from "@/lib/auth/sign-in";
import { signOut } from "@/lib/auth/sign-out";

// Server actions: Next itself refuses an action whose Origin does not match the host, which
// is the same CSRF rule the control-plane route handlers apply.

async function startSession(session: TSignIn, next: string): Promise<never> {
  if (!session) redirect(`/login?error=1&next=${encodeURIComponent(next)}`);
  const h = await headers();
  (await cookies()).set(SESSION_COOKIE, session.token, sessionCookieOptions(isHttps(h, h.get("origin") ?? ""), session.expiresAt));
  redirect(next);
}

async function requestMeta() {
  const h = await headers();
  return { ip: clientIpOf(h), userAgent: h.get("user-agent"), previousToken: (await cookies()).get(SESSION_COOKIE)?.value };
}

export async function signInAction(form: FormData): Promise<void> {
  const next = safeNextPath(form.get("next"));
  const session = await signInWithPassword(getPrisma(), String(form.get("email") ?? ""), String(form.get("password") ?? ""), await requestMeta());
  await startSession(session, next);
}

export async function demoSignInAction(form: FormData): Promise<void> {
  const next = safeNextPath(form.get("next"));
  await startSession(await signInAsDemoUser(getPrisma(), String(form.get("email") ?? ""), await requestMeta()), next);
}

export async function signOutAction(): Promise<void> {
  const jar = await cookies();
  const token = jar.get(SESSION_COOKIE)?.value;
  if (token) await signOut(getPrisma(), token, { ip: clientIpOf(await headers()) });
  jar.delete(SESSION_COOKIE);
  redirect("/login");
}
