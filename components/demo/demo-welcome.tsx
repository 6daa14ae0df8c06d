import Link from "next/link";
import { cookies } from "next/headers";
import { isDemoMode } from "@/lib/auth/demo-mode";
import { DEMO_USERS } from "@/lib/auth/demo-users";
import { DismissWelcome } from "./dismiss-welcome";
import { DEMO_WELCOME_COOKIE } from "./welcome-cookie";

const ROLE_USE: Record<string, string> = {
  viewer: "reads everything, changes nothing",
  on_call: "kill switch, provider kill and pin during an incident",
  policy_author: "writes factor lists and submits them for review",
  compliance: "approves changes to gates and regional rules",
  approver: "approves, puts in shadow, activates, rolls back",
  admin: "users, API keys, and the chaos panel",
};

/**
 * The guided first screen of `npm start`: what Switchyard is, three things to try, and who is
 * who among the demo accounts. Demo mode only; dismissing it sets a cookie, so it is rendered on
 * the server already gone (no flash, no layout jump).
 */
export async function DemoWelcome() {
  if (!isDemoMode() || (await cookies()).get(DEMO_WELCOME_COOKIE)?.value === "dismissed") return null;
  return (
    <section className="panel mb-4 p-4 text-sm" data-testid="demo-welcome" aria-label="Welcome to the Switchyard demo">
      <div className="flex items-start justify-between gap-4">
        <div className="flex flex-col gap-1">
          <h2 className="text-base font-semibold">Welcome to the Switchyard demo</h2>
          <p>
            Switchyard tells your services which third-party provider to call for each request (SMS, email, payments, LLM APIs), from hard eligibility gates and
            weighted scores over live outcome telemetry, and explains every decision. When a provider degrades it moves traffic safely — capped shifts, probe
            traffic, cooldowns, gradual failback — and shows you why.
          </p>
          <p className="muted">
            Simulated services are calling the real decide and outcome APIs right now: SEND_SMS and SEND_EMAIL from EU (50%), NA (30%) and APAC (20%).
          </p>
        </div>
        <DismissWelcome />
      </div>
      <div className="mt-3 grid gap-4 md:grid-cols-2">
        <div>
          <h3 className="mb-1 font-semibold">Three things to try</h3>
          <ol className="flex list-decimal flex-col gap-2 pl-5">
            <li>
              <strong>Inject an outage and watch traffic move.</strong> As <em>Ari Admin</em>, open{" "}
              <Link className="underline" href="/chaos">
                Chaos
              </Link>
              , take down <span className="mono">provider_A</span> in <span className="mono">EU</span>, then watch{" "}
              <Link className="underline" href="/?operation=SEND_SMS&region=EU">
                SEND_SMS · EU
              </Link>
              : its share drops, a probe floor keeps testing it, and after the fault ends it comes back gradually once the cooldown has passed.
            </li>
            <li>
              <strong>Open the decision that moved first.</strong> In{" "}
              <Link className="underline" href="/why?operation=SEND_SMS&region=EU">
                Why traffic moved
              </Link>
              , pick the first shift event: the metrics before and after, the policy version, and the decisions around it down to every gate and score.
            </li>
            <li>
              <strong>Propose a policy change and approve it as compliance.</strong> As <em>Ada Author</em>, create a new version of SEND_SMS in{" "}
              <Link className="underline" href="/factor-lists">
                Factor lists
              </Link>{" "}
              that changes a gate and submit it; sign in as <em>Chen Compliance</em> to approve it, then as <em>Priya Approver</em> to approve and activate it.
              A latency-heavier version is already running in{" "}
              <Link className="underline" href="/shadow?operation=SEND_SMS">
                shadow
              </Link>
              .
            </li>
          </ol>
        </div>
        <div>
          <h3 className="mb-1 font-semibold">Demo accounts</h3>
          <p className="muted mb-1">
            One per role, no passwords, one click at{" "}
            <Link className="underline" href="/login">
              sign in
            </Link>{" "}
            (demo mode only).
          </p>
          <table className="w-full">
            <tbody>
              {DEMO_USERS.map((u) => (
                <tr key={u.email}>
                  <td className="py-0.5 pr-3">{u.name}</td>
                  <td className="mono pr-3">{u.roles.join(", ")}</td>
                  <td className="muted">{ROLE_USE[u.roles[0] ?? ""]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </section>
  );
}
