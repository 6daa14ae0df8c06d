"use client";

import { useRouter } from "next/navigation";
import { RANGES } from "@/lib/console/ranges";
import type { TChartMark, TOverview } from "@/lib/console/types";
import { MARK_COLORS, ShareChart } from "../charts/share-chart";
import { DataTable } from "../data-table";
import { utc } from "../format";
import type { TOverviewSelection } from "./overview-toolbar";

const CHART_HEIGHT = 300;

function MarkLegend() {
  return (
    <span className="muted flex gap-3 text-xs font-normal">
      {(["shift", "activation", "override", "fault"] as const).map((k) => (
        <span key={k} className="flex items-center gap-1">
          <span style={{ width: 8, height: 8, borderRadius: 4, background: MARK_COLORS[k], display: "inline-block" }} />
          {k === "shift" ? "shift event" : k === "activation" ? "policy activation" : k === "override" ? "override" : "injected fault"}
        </span>
      ))}
      <span>click a dot to explain it, the plot to explain that moment</span>
    </span>
  );
}

/** The chart plots planned shares; a provider behind an open breaker keeps one (its probe floor) but decide sends it nothing. */
function BreakerHeldNote({ data }: { data: TOverview }) {
  const breakerHeld = data.health.filter((h) => h.breaker !== "closed" && (h.share ?? 0) > 0);
  if (breakerHeld.length === 0) return null;
  return (
    <div className="border-t px-3 py-2 text-xs" style={{ borderColor: "var(--border)" }} data-testid="breaker-held-note">
      {breakerHeld.map((h) => (
        <div key={h.provider}>
          <span className="mono">{h.provider}</span>: breaker <span style={{ color: "var(--bad)" }}>{h.breaker.replace("_", "-")}</span>, so it serves{" "}
          {h.breaker === "open" ? "0" : "only its probe calls"}; the chart plots its planned <span className="mono">{((h.share ?? 0) * 100).toFixed(1)}%</span>,
          which falls at the capped rate to the probe floor that carries its half-open probes.
        </div>
      ))}
    </div>
  );
}

function MarksTable({ marks, onMark }: { marks: TChartMark[]; onMark: (m: TChartMark) => void }) {
  return (
    <div className="overflow-y-auto border-t" style={{ borderColor: "var(--border)", height: 132 }}>
      <DataTable columns={null} empty="No shift events, activations or overrides in this range." testId="marks-table">
        {[...marks].reverse().map((m) => (
          <tr key={`${m.kind}-${m.id}`}>
            <td className="mono" style={{ width: 180 }}>
              {utc(m.at)}
            </td>
            <td style={{ width: 90, color: MARK_COLORS[m.kind] }}>{m.kind}</td>
            <td>
              <button type="button" className="mono underline" onClick={() => onMark(m)}>
                {m.label}
              </button>
            </td>
            <td className="muted" style={{ whiteSpace: "normal" }}>
              {m.detail}
            </td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}

/** Traffic share over the range with its marks: a dot opens the mark, the plot explains that moment. */
export function TrafficSharePanel({ data, selection, onMark }: { data: TOverview; selection: TOverviewSelection; onMark: (m: TChartMark) => void }) {
  const router = useRouter();
  const { operation, region, range } = selection;
  return (
    <section className="panel" aria-label="Traffic share">
      <div className="panel-title flex items-center gap-4">
        <span>
          Traffic share · <span className="mono">{data.operation}</span> · <span className="mono">{data.region}</span>
        </span>
        <MarkLegend />
      </div>
      {data.series.points.length === 0 ? (
        <div className="muted flex items-center justify-center text-sm" style={{ height: CHART_HEIGHT }}>
          No controller samples for {data.operation} in {data.region} in the last {RANGES[range].label}.
        </div>
      ) : (
        <ShareChart
          series={data.series}
          marks={data.marks}
          height={CHART_HEIGHT}
          onMark={onMark}
          onMoment={(t) => router.push(`/why?${new URLSearchParams({ operation, region, at: String(Math.round(t)) })}`)}
        />
      )}
      <BreakerHeldNote data={data} />
      <MarksTable marks={data.marks} onMark={onMark} />
    </section>
  );
}
