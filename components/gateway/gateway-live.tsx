"use client";

import { useQuery } from "@tanstack/react-query";
import type { TGatewayOperationRow, TGatewayView } from "@/lib/console/get-gateway-view";
import { DataTable } from "../data-table";
import { fetchJson } from "../fetch-json";
import { age, ms, utc } from "../format";

// Caps and per-call LLM costs are often fractions of a cent: small amounts keep two significant digits.
const money = (v: number) => (v === 0 ? "$0" : v >= 0.01 ? `$${v.toFixed(v >= 1 ? 2 : 4)}` : `$${v.toPrecision(2)}`);

/** Spend so far (all instances) against a cap: "$0.1250 of $0.50", coloured once the cap is reached. */
function Spend({ spent, cap, thisInstance }: { spent: number; cap: number | null; thisInstance: number | null }) {
  const own = thisInstance === null ? "" : `this instance ${money(thisInstance)}`;
  if (cap === null) return <span className="muted" title={own || undefined}>{spent > 0 ? `${money(spent)} · no cap` : "no cap"}</span>;
  const reached = spent >= cap;
  const title = [reached ? "cap reached: the fallback policy answers until the window resets" : "", own].filter(Boolean).join(" · ");
  return (
    <span style={{ color: reached ? "var(--bad)" : spent >= cap * 0.8 ? "var(--warn)" : undefined }} title={title || undefined}>
      {money(spent)} of {money(cap)}
    </span>
  );
}

function RetryBudget({ row }: { row: TGatewayOperationRow }) {
  const ratio = `${Math.round(row.limits.retryBudgetRatio * 100)}% (min ${row.limits.retryBudgetMinPerSecond}/s)`;
  const r = row.runtime?.retry;
  if (!r) return <span>{ratio}</span>;
  const spent = r.retries >= r.allowed;
  return (
    <span>
      {ratio}
      <span className="muted"> · </span>
      <span style={{ color: spent ? "var(--bad)" : undefined }} title={`retries in the last ${r.windowSeconds} s over ${r.requests} requests; allowed ${r.allowed}`}>
        {r.retries}/{r.allowed} used
      </span>
    </span>
  );
}

function Fallback({ row, now }: { row: TGatewayOperationRow; now: number }) {
  const since = row.runtime?.fallbackSince ?? null;
  return (
    <span>
      {row.limits.maxFallbackSeconds === null ? <span className="muted">no limit</span> : `${row.limits.maxFallbackSeconds} s`}
      {since !== null ? (
        <span style={{ color: row.limits.maxFallbackSeconds !== null && (now - since) / 1000 > row.limits.maxFallbackSeconds ? "var(--bad)" : "var(--warn)" }}>
          {" "}
          · on fallback since {age(since, now)}
        </span>
      ) : null}
    </span>
  );
}

export function GatewayLive({ initial }: { initial: TGatewayView }) {
  const query = useQuery({ queryKey: ["gateway"], queryFn: () => fetchJson<TGatewayView>("/api/console/gateway"), initialData: initial });
  const view = query.data ?? initial;
  const { now } = view;
  const executable = view.operations.filter((o) => o.callable.length > 0 || o.configured);
  const others = view.operations.filter((o) => !executable.includes(o));

  return (
    <div className="flex flex-col gap-4" data-testid="gateway">
      <section className="panel flex flex-wrap items-center gap-3 p-3 text-sm">
        <h1 className="font-semibold">Gateway · execute mode</h1>
        <span className="muted text-xs">
          POST /api/v1/execute/:operation calls the chosen provider itself and fails over within these limits. Read-only here: limits live in gateway_operation, adapters in
          provider_adapter.
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
            <span className="muted">Retry budgets, the fallback period and the job queue are not observable from this process (no gateway running in it); spend comes from the shared table.</span>
          )}
        </span>
        {query.isError ? (
          <p className="w-full text-xs" style={{ color: "var(--bad)" }} role="alert">
            Could not refresh: {query.error.message}
          </p>
        ) : null}
      </section>

      <section className="panel" aria-label="Execute limits per operation">
        <h2 className="panel-title">
          Operations <span className="muted font-normal">· limits, budgets and the fallback policy that answers when nothing is eligible or a budget is breached</span>
        </h2>
        <div className="overflow-x-auto">
          <DataTable
            columns={[
              "Operation",
              "Callable providers",
              "Deadline",
              "Max attempts",
              { label: "Retry budget", title: "Envoy-style: retries at most this share of requests in a sliding 10 s window; then this instance's use" },
              { label: "Cost / minute", title: "spent this minute by all instances, of the cap (the cap holds for the cluster)" },
              { label: "Cost / day", title: "spent today (UTC) by all instances, of the cap" },
              { label: "Max fallback", title: "how long non-primary providers may serve before only the primary may" },
              "Fallback policy",
              "Cache TTL",
              "Idempotency window",
            ]}
            empty="No operation is configured for execute mode: add provider_adapter rows for an operation's providers (and optionally a gateway_operation row)."
            testId="gateway-operations"
          >
            {executable.map((o) => (
              <tr key={o.operation} data-testid={`gateway-op-${o.operation}`}>
                <td className="mono">
                  {o.operation}
                  {o.configured ? null : <span className="muted" title="no gateway_operation row"> · defaults</span>}
                </td>
                <td className="mono">{o.callable.length > 0 ? o.callable.join(", ") : <span style={{ color: "var(--bad)" }}>none</span>}</td>
                <td className="mono">{ms(o.limits.deadlineMs)}</td>
                <td className="mono">{o.limits.maxAttempts}</td>
                <td className="mono" data-testid="gateway-retry-budget">
                  <RetryBudget row={o} />
                </td>
                <td className="mono" data-testid="gateway-cap-minute">
                  <Spend spent={o.spend.minute} cap={o.limits.costCapPerMinute} thisInstance={o.runtime?.spentMinuteThisInstance ?? null} />
                </td>
                <td className="mono" data-testid="gateway-cap-day">
                  <Spend spent={o.spend.day} cap={o.limits.costCapPerDay} thisInstance={o.runtime?.spentDayThisInstance ?? null} />
                </td>
                <td className="mono">
                  <Fallback row={o} now={now} />
                </td>
                <td className="mono" data-testid="gateway-fallback-policy">
                  {o.fallbackPolicy ?? <span className="muted">no active policy</span>}
                  {o.fallbackAction && o.fallbackAction !== o.fallbackPolicy ? <span className="muted"> → {o.fallbackAction}</span> : null}
                </td>
                <td className="mono">{o.limits.cacheTtlSeconds === null ? <span className="muted">off</span> : `${o.limits.cacheTtlSeconds} s`}</td>
                <td className="mono">{o.limits.idempotencyWindowSeconds} s</td>
              </tr>
            ))}
          </DataTable>
        </div>
        {others.length > 0 ? (
          <p className="muted px-3 pb-2 text-xs">
            Decide only (no provider with an adapter): <span className="mono">{others.map((o) => o.operation).join(", ")}</span>
          </p>
        ) : null}
      </section>

      <section className="panel" aria-label="Provider adapters">
        <h2 className="panel-title">
          Provider adapters <span className="muted font-normal">· credentials by reference only; the value never leaves the server</span>
        </h2>
        <div className="overflow-x-auto">
          <DataTable
            columns={["Provider", "Kind", "Model", "Base URL host", "Credential", "Context window", "Price / 1k in · out", "Timeout", "Operations", "Status"]}
            empty="No provider_adapter row: execute mode cannot call any provider yet."
            testId="gateway-adapters"
          >
            {view.adapters.map((a) => (
              <tr key={a.provider} data-testid={`gateway-adapter-${a.provider}`}>
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
                  {a.inputPricePer1k === null && a.outputPricePer1k === null ? <span className="muted">catalogue cost</span> : `$${a.inputPricePer1k ?? 0} · $${a.outputPricePer1k ?? 0}`}
                </td>
                <td className="mono">{ms(a.timeoutMs)}</td>
                <td className="mono">{a.operations.join(", ") || <span className="muted">none</span>}</td>
                <td style={{ whiteSpace: "normal", color: a.error ? "var(--bad)" : "var(--ok)" }}>{a.error ? `skipped: ${a.error}` : "loaded"}</td>
              </tr>
            ))}
          </DataTable>
        </div>
      </section>

      <section className="panel" aria-label="Gateway events">
        <h2 className="panel-title">
          Budget events <span className="muted font-normal">· cost caps and maximum fallback duration breached, newest first (at most one per operation, region and kind a minute)</span>
        </h2>
        <DataTable columns={["Time", "Operation", "Region", "Event", "Provider", "Detail", "Policy"]} empty="No budget has been breached." testId="gateway-events">
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
    </div>
  );
}
