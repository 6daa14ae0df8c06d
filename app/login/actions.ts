"use server";

import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { getPrisma } from "@/lib/db/client";
import { clientIpOf } from "@/lib/auth/client-ip";
import { safeNextPath } from "@/lib/auth/current-user";
import { isHttps } from "@/lib/auth/same-origin";
import { SESSION_COOKIE, sessionCookieOptions } from "@/lib/auth/session";
import { signInAsDemoUser, signInWithPassword, type TSignIn } from "@/lib/auth/sign-in";
import { ContractError, busy, isTransactionStartTimeout } from "@/lib/errors/api-errors";
import { signOut } from "@/lib/auth/sign-out";

// Server actions: Next itself refuses an action whose Origin does not match the host, which
// is the same CSRF rule the control-plane route handlers apply.

/**
 * The sign-in, or how long the throttle (or a busy database) asks the browser to wait, which
 * the login page shows. redirect() must run outside the try: it throws to do its work.
 */
async function attempt(signIn: () => Promise<TSignIn>): Promise<TSignIn | { waitSeconds: number }> {
  try {
    return await signIn();
  } catch (caught) {
    const err = isTransactionStartTimeout(caught) ? busy() : caught;
    if (err instanceof ContractError && err.retryAfterSeconds !== undefined) return { waitSeconds: err.retryAfterSeconds };
    throw err;
  }
}

async function startSession(result: TSignIn | { waitSeconds: number }, next: string): Promise<never> {
  if (result && "waitSeconds" in result) redirect(`/login?wait=${result.waitSeconds}&next=${encodeURIComponent(next)}`);
  const session = result;
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
  const meta = await requestMeta();
  await startSession(await attempt(() => signInWithPassword(getPrisma(), String(form.get("email") ?? ""), String(form.get("password") ?? ""), meta)), next);
}

export async function demoSignInAction(form: FormData): Promise<void> {
  const next = safeNextPath(form.get("next"));
  const meta = await requestMeta();
  await startSession(await attempt(() => signInAsDemoUser(getPrisma(), String(form.get("email") ?? ""), meta)), next);
}

export async function signOutAction(): Promise<void> {
  const jar = await cookies();
  const token = jar.get(SESSION_COOKIE)?.value;
  if (token) await signOut(getPrisma(), token, { ip: clientIpOf(await headers()) });
  jar.delete(SESSION_COOKIE);
  redirect("/login");
}
