import { age, ms, pct, utc } from "@/components/format";
import { KillSwitchPanel, OverridesPanel, ProviderControls, ProviderRowActions } from "@/components/providers/controls";
import { getProvidersView } from "@/lib/console/get-providers-view";
import { can, getViewer } from "@/lib/console/get-viewer";
import { listActiveOverrides } from "@/lib/console/list-active-overrides";
import { listScopes } from "@/lib/console/list-scopes";
import { listTrafficShares } from "@/lib/console/list-traffic-shares";

export const dynamic = "force-dynamic";

export default async function ProvidersPage() {
  const [{ now, providers, health, breakerEvents }, viewer, overrides, scope, shares] = await Promise.all([
    getProvidersView(),
    getViewer(),
    listActiveOverrides(),
    listScopes(),
    listTrafficShares(),
  ]);
  const controls = {
    providers: providers.map((p) => ({ key: p.key, regions: p.supportedRegions })),
    operations: scope.operations,
    shares,
    sharesAt: now,
    canCreate: can(viewer, "override.create"),
    canEnd: can(viewer, "override.end"),
  };
  return (
    <ProviderControls data={controls}>
      <div className="flex flex-col gap-4">
        <section className="panel">
          <h2 className="panel-title">
            Providers
          </h2>
          <table className="dense" data-testid="providers-table">
            <thead>
              <tr>
                <th>Key</th>
                <th>Name</th>
                <th>Regions</th>
                <th>Compliance</th>
                <th>Cost / request</th>
                <th>Credentials</th>
                <th>Enabled</th>
                {controls.canCreate ? <th>Override</th> : null}
              </tr>
            </thead>
            <tbody>
              {providers.map((p) => (
                <tr key={p.key} data-testid={`provider-${p.key}`}>
                  <td className="mono">{p.key}</td>
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
                  {controls.canCreate ? (
                    <td style={{ width: 1 }}>
                      <ProviderRowActions provider={p.key} />
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </section>

        <OverridesPanel overrides={overrides} now={now} />
        <KillSwitchPanel overrides={overrides} />

        {health.map((h) => (
          <section key={h.operation} className="panel" aria-label={`Health for ${h.operation}`}>
            <h2 className="panel-title">
              Health · <span className="mono">{h.operation}</span> <span className="muted font-normal">· per provider and region, last {h.windowMinutes} min</span>
            </h2>
            <table className="dense" data-testid={`health-${h.operation}`}>
              <thead>
                <tr>
                  <th>Provider</th>
                  <th>Region</th>
                  <th>Share</th>
                  <th>Completion</th>
                  <th>p95</th>
                  <th>Samples</th>
                  <th>Breaker</th>
                </tr>
              </thead>
              <tbody>
                {h.rows.map((r) => (
                  <tr key={`${r.provider}|${r.region}`}>
                    <td className="mono">{r.provider}</td>
                    <td className="mono">{r.region}</td>
                    <td className="mono">{pct(r.share)}</td>
                    <td className="mono" style={{ color: r.completionRate !== null && r.completionRate < 0.9 ? "var(--bad)" : undefined }}>
                      {pct(r.completionRate)}
                    </td>
                    <td className="mono">{ms(r.p95Ms)}</td>
                    <td className="mono">{r.samples}</td>
                    <td className={`state-${r.breaker}`} title={r.breakerReason ?? "never tripped"}>
                      {r.breaker.replace("_", "-")}
                      {r.breakerSince ? <span className="muted font-normal"> · {age(r.breakerSince, now)}</span> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        ))}

        <section className="panel" aria-label="Breaker history">
          <h2 className="panel-title">Circuit breaker history</h2>
          <table className="dense" data-testid="breaker-history">
            <thead>
              <tr>
                <th>Time</th>
                <th>Provider</th>
                <th>Region</th>
                <th>Transition</th>
                <th>Reason</th>
                <th>Instance</th>
              </tr>
            </thead>
            <tbody>
              {breakerEvents.length === 0 ? (
                <tr>
                  <td colSpan={6} className="muted">
                    No breaker has tripped yet.
                  </td>
                </tr>
              ) : (
                breakerEvents.map((e) => (
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
                ))
              )}
            </tbody>
          </table>
        </section>
      </div>
    </ProviderControls>
  );
}
