import { RANGES, RANGE_KEYS, type TRangeKey } from "@/lib/console/ranges";
import type { TOverview, TScope } from "@/lib/console/types";
import { utc } from "../format";

export type TOverviewSelection = { operation: string; region: string; range: TRangeKey };

/** Operation, region and range pickers, and what the view shows (policy, window, freshness). */
export function OverviewToolbar({
  scope,
  selection,
  regions,
  data,
  refreshFailed,
  select,
}: {
  scope: TScope;
  selection: TOverviewSelection;
  regions: string[];
  data: TOverview;
  refreshFailed: boolean;
  select: (next: Partial<TOverviewSelection>) => void;
}) {
  const { operation, region, range } = selection;
  return (
    <div className="flex flex-wrap items-center gap-3">
      <h1 className="text-base font-semibold tracking-tight">Overview</h1>
      <label className="flex items-center gap-2 text-xs">
        <span className="muted">Operation</span>
        <select className="field mono" value={operation} onChange={(e) => select({ operation: e.target.value })} data-testid="operation-select">
          {scope.operations.map((o) => (
            <option key={o.key}>{o.key}</option>
          ))}
        </select>
      </label>
      <div className="flex items-center gap-1" role="group" aria-label="Region">
        <span className="muted mr-1 text-xs">Region</span>
        {regions.map((r) => (
          <button key={r} type="button" className="btn mono" aria-pressed={r === region} onClick={() => select({ region: r })}>
            {r}
          </button>
        ))}
      </div>
      <div className="flex items-center gap-1" role="group" aria-label="Range">
        <span className="muted mr-1 text-xs">Range</span>
        {RANGE_KEYS.map((k) => (
          <button key={k} type="button" className="btn" aria-pressed={k === range} onClick={() => select({ range: k })}>
            {RANGES[k].label}
          </button>
        ))}
      </div>
      <span className="muted ml-auto text-xs" aria-live="polite">
        policy <span className="mono">{data.policyVersion ?? "none"}</span> · metric window {data.windowMinutes} min · updated {utc(data.generatedAt).slice(11)}
        {refreshFailed ? <span style={{ color: "var(--bad)" }}> · refresh failed, showing last data</span> : null}
      </span>
    </div>
  );
}
