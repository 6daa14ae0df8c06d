import type { TGatewayView } from "@/lib/console/gateway/get-gateway-view";
import { DataTable } from "../data-table";
import { ms, utc } from "../format";

type TAdapter = TGatewayView["adapters"][number];

/** What the page shows and which instance's state it is. */
export function GatewayHeader({ view, refreshError }: { view: TGatewayView; refreshError: Error | null }) {
  return (
    <section className="panel flex flex-wrap items-center gap-3 p-3 text-sm">
      <h1 className="font-semibold">Gateway · execute mode</h1>
      <span className="muted text-xs">
        POST /api/v1/execute/:operation calls the chosen provider itself and fails over within these limits. Read-only here: limits live in gateway_operation,
        adapters in provider_adapter.
      </span>
      <span className="ml-auto text-xs" data-testid="gateway-instance">
        {view.instance ? (
          <>
            <span className="muted">State of instance </span>
            <span className="mono">{view.instance.id}</span>
            <span className="muted"> (retry budgets, the fallback period and the queue are per instance; spend is for all instances) · queued jobs </span>
            <span className="mono" data-testid="gateway-queue-depth">
              {view.instance.queuedJobs}
            </span>
          </>
        ) : (
          <span className="muted">
            Retry budgets, the fallback period and the job queue are not observable from this process (no gateway running in it); spend comes from the shared
            table.
          </span>
        )}
      </span>
      {refreshError ? (
        <p className="w-full text-xs" style={{ color: "var(--bad)" }} role="alert">
          Could not refresh: {refreshError.message}
        </p>
      ) : null}
    </section>
  );
}

function AdapterRow({ a }: { a: TAdapter }) {
  return (
    <tr data-testid={`gateway-adapter-${a.provider}`}>
      <td className="mono">{a.provider}</td>
      <td className="mono">{a.kind}</td>
      <td className="mono">{a.model ?? "–"}</td>
      <td className="mono">{a.host ?? "–"}</td>
      <td className="mono" data-testid="gateway-credential">
        {a.credentialRef ?? <span className="muted">{a.error?.includes("credential_ref") ? "invalid (hidden)" : "none"}</span>}
        {a.credentialAvailable === null ? null : a.credentialAvailable ? (
          <span style={{ color: "var(--ok)" }}> · set</span>
        ) : (
          <span style={{ color: "var(--bad)" }} title="the reference does not resolve in this server process: execute skips this provider">
            {" "}
            · missing
          </span>
        )}
      </td>
      <td className="mono">{a.contextWindow === null ? <span className="muted">no check</span> : a.contextWindow.toLocaleString("en-US")}</td>
      <td className="mono">
        {a.inputPricePer1k === null && a.outputPricePer1k === null ? (
          <span className="muted">catalogue cost</span>
        ) : (
          `$${a.inputPricePer1k ?? 0} · $${a.outputPricePer1k ?? 0}`
        )}
      </td>
      <td className="mono">{ms(a.timeoutMs)}</td>
      <td className="mono">{a.operations.join(", ") || <span className="muted">none</span>}</td>
      <td style={{ whiteSpace: "normal", color: a.error ? "var(--bad)" : "var(--ok)" }}>{a.error ? `skipped: ${a.error}` : "loaded"}</td>
    </tr>
  );
}

export function AdaptersPanel({ view }: { view: TGatewayView }) {
  return (
    <section className="panel" aria-label="Provider adapters">
      <h2 className="panel-title">
        Provider adapters <span className="muted font-normal">· credentials by reference only; the value never leaves the server</span>
      </h2>
      <div className="overflow-x-auto" tabIndex={0} role="region" aria-label="Provider adapters table">
        <DataTable
          columns={["Provider", "Kind", "Model", "Base URL host", "Credential", "Context window", "Price / 1k in · out", "Timeout", "Operations", "Status"]}
          empty="No provider_adapter row: execute mode cannot call any provider yet."
          testId="gateway-adapters"
        >
          {view.adapters.map((a) => (
            <AdapterRow key={a.provider} a={a} />
          ))}
        </DataTable>
      </div>
    </section>
  );
}

export function EventsPanel({ view }: { view: TGatewayView }) {
  return (
    <section className="panel" aria-label="Gateway events">
      <h2 className="panel-title">
        Budget events{" "}
        <span className="muted font-normal">
          · cost caps and maximum fallback duration breached, newest first (at most one per operation, region and kind a minute)
        </span>
      </h2>
      <DataTable
        columns={["Time", "Operation", "Region", "Event", "Provider", "Detail", "Policy"]}
        empty="No budget has been breached."
        testId="gateway-events"
      >
        {view.events.map((e) => (
          <tr key={e.id}>
            <td className="mono">{utc(e.at)}</td>
            <td className="mono">{e.operation}</td>
            <td className="mono">{e.region}</td>
            <td className="mono" style={{ color: "var(--warn)" }}>
              {e.kind ?? e.type}
            </td>
            <td className="mono">{e.provider ?? "–"}</td>
            <td style={{ whiteSpace: "normal" }}>{e.detail}</td>
            <td className="mono muted">{e.policyVersion ?? "–"}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
