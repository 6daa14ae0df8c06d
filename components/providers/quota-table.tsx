import { DataTable } from "@/components/data-table";
import { utc } from "@/components/format";
import type { TQuotaWindowRow, TThrottleRow } from "@/lib/console/providers/get-quota-view";

/** "3600 s" reads worse than "1 h" in a table an operator scans. */
function span(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/**
 * Each catalogued quota's current window as the cluster counts it, and the providers throttled by
 * a 429: why a provider fails quota_available, without opening a decision.
 */
export function QuotaPanel({ windows, throttles }: { windows: TQuotaWindowRow[]; throttles: TThrottleRow[] }) {
  return (
    <section className="panel" aria-label="Quotas">
      <h2 className="panel-title">
        Quotas{" "}
        <span className="muted font-normal">· current window, counted for the cluster; leased is what instances took in blocks, spent is at most that</span>
      </h2>
      <DataTable
        columns={["Provider", "Quota", "Window (UTC)", "Leased", "Instances", "State"]}
        empty="No provider has a quota in the catalogue."
        testId="quota-table"
      >
        {windows.map((w) => (
          <tr key={`${w.provider}-${w.unit}-${w.windowSeconds}`} data-testid={`quota-${w.provider}-${w.unit}`}>
            <td className="mono">{w.provider}</td>
            <td className="mono">
              {w.limit.toLocaleString("en-US")} {w.unit} / {span(w.windowSeconds)}
            </td>
            <td className="mono">
              {utc(w.windowStart)} → {utc(w.windowEnd)}
            </td>
            <td className="mono" data-testid="quota-leased">
              {w.leased.toLocaleString("en-US")} of {w.limit.toLocaleString("en-US")} ({Math.round((w.leased / w.limit) * 100)}%)
            </td>
            <td className="mono">{w.holders}</td>
            <td
              data-testid="quota-state"
              style={{ color: w.state === "fully_leased" ? "var(--bad)" : "var(--ok)" }}
              title={
                w.state === "fully_leased"
                  ? "Nothing left to lease: quota_available fails once the instances' blocks are spent, until the window ends."
                  : undefined
              }
            >
              {w.state === "fully_leased" ? `fully leased until ${utc(w.windowEnd).slice(11)}` : "available"}
            </td>
          </tr>
        ))}
      </DataTable>
      {throttles.length > 0 ? (
        <DataTable columns={["Provider", "Throttled by a 429 until", "Learned by"]} empty="" testId="throttle-table">
          {throttles.map((t) => (
            <tr key={t.provider} data-testid={`throttle-${t.provider}`}>
              <td className="mono">{t.provider}</td>
              <td className="mono">{utc(t.until)}</td>
              <td className="mono muted">{t.instance}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </section>
  );
}
