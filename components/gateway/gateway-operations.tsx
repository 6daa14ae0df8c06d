import type { TGatewayOperationRow } from "@/lib/console/gateway/get-gateway-view";
import { DataTable } from "../data-table";
import { age, ms } from "../format";

// Caps and per-call LLM costs are often fractions of a cent: small amounts keep two significant digits.
const money = (v: number) => (v === 0 ? "$0" : v >= 0.01 ? `$${v.toFixed(v >= 1 ? 2 : 4)}` : `$${v.toPrecision(2)}`);

/** Spend so far (all instances) against a cap: "$0.1250 of $0.50", coloured once the cap is reached. */
function Spend({ spent, cap, thisInstance }: { spent: number; cap: number | null; thisInstance: number | null }) {
  const own = thisInstance === null ? "" : `this instance ${money(thisInstance)}`;
  if (cap === null)
    return (
      <span className="muted" title={own || undefined}>
        {spent > 0 ? `${money(spent)} · no cap` : "no cap"}
      </span>
    );
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
      <span
        style={{ color: spent ? "var(--bad)" : undefined }}
        title={`retries in the last ${r.windowSeconds} s over ${r.requests} requests; allowed ${r.allowed}`}
      >
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

function OperationRow({ o, now }: { o: TGatewayOperationRow; now: number }) {
  return (
    <tr data-testid={`gateway-op-${o.operation}`}>
      <td className="mono">
        {o.operation}
        {o.configured ? null : (
          <span className="muted" title="no gateway_operation row">
            {" "}
            · defaults
          </span>
        )}
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
  );
}

/** Execute limits per operation: deadlines, attempts, retry budget, spend against caps, fallback. */
export function OperationsPanel({ executable, others, now }: { executable: TGatewayOperationRow[]; others: TGatewayOperationRow[]; now: number }) {
  return (
    <section className="panel" aria-label="Execute limits per operation">
      <h2 className="panel-title">
        Operations{" "}
        <span className="muted font-normal">· limits, budgets and the fallback policy that answers when nothing is eligible or a budget is breached</span>
      </h2>
      {/* Focusable: a keyboard user scrolls the wide table with the arrow keys (axe: scrollable-region-focusable). */}
      <div className="overflow-x-auto" tabIndex={0} role="region" aria-label="Operations table">
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
            <OperationRow key={o.operation} o={o} now={now} />
          ))}
        </DataTable>
      </div>
      {others.length > 0 ? (
        <p className="muted px-3 pb-2 text-xs">
          Decide only (no provider with an adapter): <span className="mono">{others.map((o) => o.operation).join(", ")}</span>
        </p>
      ) : null}
    </section>
  );
}
