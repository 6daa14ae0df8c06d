import { DataTable } from "@/components/data-table";
import { LiveRefresh } from "@/components/live-refresh";
import { utc } from "@/components/format";
import { KillSwitchPanel, OverridesPanel, ProviderControls, ProviderRowActions } from "@/components/providers/controls";
import { ProviderHealthTable } from "@/components/providers/health-table";
import { QuotaPanel } from "@/components/providers/quota-table";
import { getProvidersView } from "@/lib/console/providers/get-providers-view";
import { getQuotaView } from "@/lib/console/providers/get-quota-view";
import { can, getViewer } from "@/lib/console/get-viewer";
import { listActiveOverrides } from "@/lib/console/providers/list-active-overrides";
import { listScopes } from "@/lib/console/traffic/list-scopes";
import { listStaticOrders } from "@/lib/console/traffic/list-static-orders";
import { listTrafficShares } from "@/lib/console/traffic/list-traffic-shares";
import { overrideLimitsFromEnv } from "@/lib/controlplane/overrides/override-limits";

export const dynamic = "force-dynamic";

const one = (v: string | string[] | undefined) => (typeof v === "string" && v ? v : null);

export default async function ProvidersPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const [{ now, providers, health, breakerEvents }, viewer, overrides, scope, shares, quotas, staticOrder] = await Promise.all([
    getProvidersView(),
    getViewer(),
    listActiveOverrides(),
    listScopes(),
    listTrafficShares(),
    getQuotaView(),
    listStaticOrders(),
  ]);
  const controls = {
    providers: providers.map((p) => ({ key: p.key, regions: p.supportedRegions })),
    operations: scope.operations,
    shares,
    sharesAt: now,
    canCreate: can(viewer, "override.create"),
    canEnd: can(viewer, "override.end"),
    // Only a known operation and region count as "in view"; anything else falls back to the provider's own.
    view: {
      operation: scope.operations.some((o) => o.key === one(sp.operation)) ? one(sp.operation) : null,
      region: scope.operations.some((o) => o.regions.includes(one(sp.region) ?? "")) ? one(sp.region) : null,
    },
    pinMaxMinutes: Math.floor(overrideLimitsFromEnv(process.env).pinMaxExpiryMs / 60_000),
    staticOrder,
  };
  return (
    <ProviderControls data={controls}>
      <div className="flex flex-col gap-4">
        <section className="panel">
          <h1 className="panel-title flex items-center">
            Providers
            <span className="ml-auto font-normal">
              <LiveRefresh />
            </span>
          </h1>
          <DataTable
            // Override right after the key: on a phone Kill and Pin are in view without scrolling the table sideways.
            columns={["Key", ...(controls.canCreate ? ["Override"] : []), "Name", "Regions", "Compliance", "Cost / request", "Credentials", "Enabled"]}
            empty="No provider in the catalogue yet."
            testId="providers-table"
          >
            {providers.map((p) => (
              <tr key={p.key} data-testid={`provider-${p.key}`}>
                <td className="mono">{p.key}</td>
                {controls.canCreate ? (
                  <td style={{ width: 1 }}>
                    <ProviderRowActions provider={p.key} />
                  </td>
                ) : null}
                <td>{p.displayName}</td>
                <td>
                  {p.supportedRegions.map((r) => (
                    <span key={r} className="tag">
                      {r}
                    </span>
                  ))}
                </td>
                <td>
                  {p.complianceTags.map((t) => (
                    <span key={t} className="tag">
                      {t}
                    </span>
                  ))}
                </td>
                <td className="mono">${p.costPerRequest}</td>
                <td style={{ color: p.credentialStatus === "valid" ? "var(--ok)" : "var(--bad)" }}>{p.credentialStatus}</td>
                <td>{p.enabled ? "yes" : "no"}</td>
              </tr>
            ))}
          </DataTable>
        </section>

        <OverridesPanel overrides={overrides} now={now} />
        <KillSwitchPanel overrides={overrides} />
        <QuotaPanel windows={quotas.windows} throttles={quotas.throttles} />

        {health.map((h) => (
          <section key={h.operation} className="panel" aria-label={`Health for ${h.operation}`}>
            <h2 className="panel-title">
              Health · <span className="mono">{h.operation}</span>{" "}
              <span className="muted font-normal">· per provider and region, last {h.windowMinutes} min</span>
            </h2>
            <ProviderHealthTable rows={h.rows} now={now} byRegion testId={`health-${h.operation}`} empty={`No provider serves ${h.operation}.`} />
          </section>
        ))}

        <section className="panel" aria-label="Breaker history">
          <h2 className="panel-title">Circuit breaker history</h2>
          <DataTable columns={["Time", "Provider", "Region", "Transition", "Reason", "Instance"]} empty="No breaker has tripped yet." testId="breaker-history">
            {breakerEvents.map((e) => (
              <tr key={e.id}>
                <td className="mono">{utc(e.at)}</td>
                <td className="mono">{e.provider}</td>
                <td className="mono">{e.region ?? "all"}</td>
                <td className="mono">
                  <span className={`state-${e.from}`}>{e.from}</span> → <span className={`state-${e.to}`}>{e.to}</span>
                </td>
                <td style={{ whiteSpace: "normal" }}>
                  {e.reason}
                  {e.detail ? <span className="muted"> · {e.detail}</span> : null}
                </td>
                <td className="mono muted">{e.instance}</td>
              </tr>
            ))}
          </DataTable>
        </section>
      </div>
    </ProviderControls>
  );
}
