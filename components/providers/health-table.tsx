import type { TBreakerState, TProviderHealth } from "@/lib/console/types";
import { DataTable } from "../data-table";
import { age, ms, pct } from "../format";

/** A breaker's state, coloured, with how long it has been in it and why it tripped as the tooltip. */
export function BreakerState({ state, since, reason, now }: { state: TBreakerState; since: number | null; reason: string | null; now: number }) {
  return (
    <span className={`state-${state}`} title={reason ?? "never tripped"}>
      {state.replace("_", "-")}
      {since ? <span className="muted font-normal"> · {age(since, now)}</span> : null}
    </span>
  );
}

/**
 * Provider health rows: share, completion, p95, samples and breaker per provider (and region,
 * when the table spans regions). Completion below 90% is marked: that is where on-call looks first.
 */
export function ProviderHealthTable({
  rows,
  now,
  byRegion,
  testId,
  empty,
}: {
  rows: readonly TProviderHealth[];
  now: number;
  byRegion: boolean;
  testId: string;
  empty: string;
}) {
  const withServed = rows.some((h) => h.servedShare !== undefined);
  const shareColumns = withServed ? ["Served", "Plan"] : ["Share"];
  return (
    <DataTable
      columns={["Provider", ...(byRegion ? ["Region"] : []), ...shareColumns, "Completion", "p95", "Samples", "Breaker"]}
      empty={empty}
      testId={testId}
    >
      {rows.map((h) => (
        <tr key={`${h.provider}|${h.region}`} data-testid={byRegion ? undefined : `health-${h.provider}`}>
          <td className="mono">{h.provider}</td>
          {byRegion ? <td className="mono">{h.region}</td> : null}
          {withServed ? (
            <td className="mono" data-served-share={h.servedShare ?? ""}>
              {pct(h.servedShare)}
            </td>
          ) : null}
          <td className="mono">{pct(h.share)}</td>
          <td className="mono" style={{ color: h.completionRate !== null && h.completionRate < 0.9 ? "var(--bad)" : undefined }}>
            {pct(h.completionRate)}
          </td>
          <td className="mono">{ms(h.p95Ms)}</td>
          <td className="mono">{h.samples}</td>
          <td>
            <BreakerState state={h.breaker} since={h.breakerSince} reason={h.breakerReason} now={now} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
