import { cookies } from "next/headers";
import { getPrisma } from "@/lib/db/client";
import { safeNextPath } from "@/lib/auth/current-user";
import { isDemoMode } from "@/lib/auth/demo-mode";
import { DEMO_USERS } from "@/lib/auth/demo-users";
import { SESSION_COOKIE, resolveSession } from "@/lib/auth/session";
import { demoSignInAction, signInAction, signOutAction } from "./actions";

export const dynamic = "force-dynamic";

const ROLE_BLURB: Record<string, string> = {
  viewer: "reads everything",
  on_call: "kill switch, provider kill and pin",
  policy_author: "writes and submits factor lists",
  compliance: "approves gate and regional changes",
  approver: "approves, shadows, activates, rolls back",
  admin: "users and API keys",
};

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const next = safeNextPath(params.next);
  // The throttle's wait, as the sign-in action passed it on: a whole number of seconds or nothing.
  const wait = typeof params.wait === "string" && /^\d{1,5}$/.test(params.wait) ? Number(params.wait) : null;
  const user = await resolveSession(getPrisma(), (await cookies()).get(SESSION_COOKIE)?.value);
  const demo = isDemoMode();

  return (
    <div className="mx-auto flex max-w-md flex-col gap-5 pt-10">
      <h1 className="text-xl font-semibold">Sign in to Switchyard</h1>
      {user && (
        <section className="panel flex items-center justify-between p-3" data-testid="signed-in">
          <span>
            Signed in as <strong>{user.email}</strong> ({user.roles.join(", ")})
          </span>
          <form action={signOutAction}>
            <button type="submit" className="underline">
              Sign out
            </button>
          </form>
        </section>
      )}
      {params.error && !wait && (
        <p role="alert" style={{ color: "var(--bad)" }}>
          Wrong email or password.
        </p>
      )}
      {wait && (
        <p role="alert" style={{ color: "var(--bad)" }} data-testid="sign-in-wait">
          Too many failed sign-ins. Try again in {wait} {wait === 1 ? "second" : "seconds"}.
        </p>
      )}
      {demo && (
        <section className="panel flex flex-col gap-2 p-3" data-testid="demo-sign-in">
          <h2 className="text-sm font-semibold">Demo mode: sign in as a role</h2>
          <p className="text-xs" style={{ color: "var(--muted)" }}>
            The embedded database on loopback only. These users have no password and cannot sign in anywhere else.
          </p>
          {DEMO_USERS.map((u) => (
            <form key={u.email} action={demoSignInAction} className="flex items-center justify-between gap-3">
              <input type="hidden" name="email" value={u.email} />
              <input type="hidden" name="next" value={next} />
              <span className="text-sm">
                <strong>{u.roles.join(", ")}</strong> <span style={{ color: "var(--muted)" }}>— {ROLE_BLURB[u.roles[0] ?? ""]}</span>
              </span>
              <button type="submit" className="rounded border px-3 py-1 text-sm" style={{ borderColor: "var(--border)" }} data-testid={`demo-${u.roles[0]}`}>
                Sign in as {u.name}
              </button>
            </form>
          ))}
        </section>
      )}
      <form action={signInAction} className="panel flex flex-col gap-3 p-3">
        <input type="hidden" name="next" value={next} />
        <label className="flex flex-col gap-1 text-sm">
          Email
          <input name="email" type="email" autoComplete="username" required className="rounded border px-2 py-1" style={{ borderColor: "var(--border)" }} />
        </label>
        <label className="flex flex-col gap-1 text-sm">
          Password
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            required
            className="rounded border px-2 py-1"
            style={{ borderColor: "var(--border)" }}
          />
        </label>
        <button type="submit" className="rounded px-3 py-1 text-sm" style={{ background: "var(--accent)", color: "var(--panel)" }}>
          Sign in
        </button>
        {!demo && (
          <p className="text-xs" style={{ color: "var(--muted)" }}>
            No account yet? An operator creates the first admin with SWITCHYARD_ADMIN_EMAIL and SWITCHYARD_ADMIN_PASSWORD at start-up, or{" "}
            <code>npm run user:create-admin</code>.
          </p>
        )}
      </form>
    </div>
  );
}
