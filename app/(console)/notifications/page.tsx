import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { NotificationDeliveries } from "@/components/notify/deliveries";
import { getPrisma } from "@/lib/db/client";
import { rolesGrant } from "@/lib/auth/permissions";
import { SESSION_COOKIE, resolveSession } from "@/lib/auth/session";
import { getNotificationsView } from "@/lib/notify";
import { ChannelForm, DeleteChannelButton, TestSendButton } from "./notification-forms";

export const dynamic = "force-dynamic";

const ROUTE_LABEL = (values: readonly string[]) => (values.length === 0 ? "all" : values.join(", "));

/** Where incidents, kill switches, pins, activations and approvals are sent: admins only (the secrets' references and receivers). */
export default async function NotificationsPage() {
  const prisma = getPrisma();
  const me = await resolveSession(prisma, (await cookies()).get(SESSION_COOKIE)?.value);
  if (!me) redirect("/login?next=/notifications");
  if (!rolesGrant(me.roles, "notification.manage")) {
    return (
      <div className="flex flex-col gap-3">
        <h1 className="text-base font-semibold tracking-tight">Notifications</h1>
        <p className="panel p-3 text-sm" data-testid="notifications-forbidden">
          Notification channels are managed by admins (notification.manage).
        </p>
      </div>
    );
  }
  const view = await getNotificationsView(prisma);
  return (
    <div className="flex flex-col gap-5" data-testid="notifications">
      <h1 className="text-base font-semibold tracking-tight">Notifications</h1>
      <p className="muted text-sm">
        Incidents, kill switches, pins, factor-list activations and compliance approvals go to these channels through a durable outbox: one message per event
        per channel for the whole cluster, retried with backoff. Secrets are references (<span className="mono">env:NAME</span> or{" "}
        <span className="mono">file:/path</span>), never values.
        {!view.publicUrlSet && " Set SWITCHYARD_PUBLIC_URL so messages link to the console."}
      </p>
      <section className="panel">
        <h2 className="px-3 pt-3 text-sm font-semibold">Add a channel</h2>
        <ChannelForm />
      </section>
      {view.channels.length === 0 && (
        <p className="muted text-sm" data-testid="no-channels">
          No channel yet: nobody is told when traffic moves.
        </p>
      )}
      {view.channels.map((c) => (
        <section key={c.id} className="panel" data-testid={`channel-${c.name}`}>
          <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1 px-3 pt-3">
            <h2 className="mono text-sm font-semibold">{c.name}</h2>
            <span className="text-xs">{c.kind}</span>
            <span className="text-xs" style={{ color: c.enabled ? "var(--ok)" : "var(--muted)" }}>
              {c.enabled ? "enabled" : "disabled"}
            </span>
            <span className="text-xs" data-testid="secret-state" style={{ color: c.secretState === "resolved" ? "var(--ok)" : "var(--bad)" }}>
              <span className="mono">{c.secretRef}</span> {c.secretState === "resolved" ? "resolves here" : "missing on this instance"}
            </span>
            <span className="muted text-xs">
              events {ROUTE_LABEL(c.routes.kinds)} · operations {ROUTE_LABEL(c.routes.operations)} · regions {ROUTE_LABEL(c.routes.regions)} · severities{" "}
              {ROUTE_LABEL(c.routes.severities)}
            </span>
          </div>
          <div className="flex flex-wrap items-start gap-4 px-3 pt-2">
            <TestSendButton id={c.id} name={c.name} />
            <DeleteChannelButton id={c.id} name={c.name} />
          </div>
          <details>
            <summary className="cursor-pointer px-3 pt-2 text-xs">Edit</summary>
            <ChannelForm value={c} />
          </details>
          <h3 className="px-3 pt-2 text-xs font-semibold">Latest deliveries</h3>
          <NotificationDeliveries deliveries={c.deliveries} showChannel={false} testId={`deliveries-${c.name}`} />
        </section>
      ))}
    </div>
  );
}
