"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { RANGES } from "@/lib/console/ranges";
import type { TChartMark, TIncidentSpan, TOverview } from "@/lib/console/types";
import { MARK_COLORS, ShareChart } from "../charts/share-chart";
import { DataTable } from "../data-table";
import { pct, utc } from "../format";
import type { TOverviewSelection } from "./overview-toolbar";

const CHART_HEIGHT = 300;

function MarkLegend() {
  return (
    <span className="muted flex flex-wrap gap-x-3 gap-y-1 text-xs font-normal">
      <span className="flex items-center gap-1">
        <span
          style={{
            width: 12,
            height: 8,
            background: "color-mix(in srgb, var(--muted) 25%, transparent)",
            border: "1px dashed var(--warn)",
            display: "inline-block",
          }}
        />
        incident
      </span>
      <span className="flex items-center gap-1">
        <span style={{ width: 12, height: 8, background: "var(--bad)", opacity: 0.3, display: "inline-block" }} />
        override in effect
      </span>
      {(["activation", "override", "fault"] as const).map((k) => (
        <span key={k} className="flex items-center gap-1">
          <span style={{ width: 8, height: 8, borderRadius: 4, background: MARK_COLORS[k], display: "inline-block" }} />
          {k === "activation" ? "policy activation" : k === "override" ? "override set or ended" : "injected fault"}
        </span>
      ))}
      <span>click a band or dot to explain it, the plot to explain that moment</span>
    </span>
  );
}

/** The plan keeps a share (its probe floor) for a provider behind an open breaker, but decide sends it nothing: say so next to the plan. */
function BreakerHeldNote({ data }: { data: TOverview }) {
  const breakerHeld = data.health.filter((h) => h.breaker !== "closed" && (h.share ?? 0) > 0);
  if (breakerHeld.length === 0) return null;
  return (
    <div className="border-t px-3 py-2 text-xs" style={{ borderColor: "var(--border)" }} data-testid="breaker-held-note">
      {breakerHeld.map((h) => (
        <div key={h.provider}>
          <span className="mono">{h.provider}</span>: breaker <span style={{ color: "var(--bad)" }}>{h.breaker.replace("_", "-")}</span>, so it serves{" "}
          {h.breaker === "open" ? "0" : "only its probe calls"}; the controller&apos;s plan still holds{" "}
          <span className="mono">{((h.share ?? 0) * 100).toFixed(1)}%</span>, which falls at the capped rate to the probe floor that carries its half-open
          probes.
        </div>
      ))}
    </div>
  );
}

function incidentHref(i: TIncidentSpan) {
  return `/incidents/${i.id}`;
}

function IncidentRows({ incidents }: { incidents: readonly TIncidentSpan[] }) {
  return incidents.map((i) => (
    <tr key={`incident-${i.id}`} data-testid="incident-mark">
      <td className="mono" style={{ width: 180 }}>
        {utc(i.start)}
      </td>
      <td style={{ width: 90, color: MARK_COLORS.shift }}>incident</td>
      <td>
        <a className="underline" href={incidentHref(i)} data-testid="incident-mark-link">
          {i.title}
        </a>
      </td>
      <td className="muted" style={{ whiteSpace: "normal" }}>
        {i.resolved ? `until ${utc(i.end)}` : "ongoing"} · {i.events} {i.events === 1 ? "step" : "steps"} · losing {i.losing.join(", ") || "none"} · gaining{" "}
        {i.gaining.join(", ") || "none"}
      </td>
    </tr>
  ));
}

function MarksTable({ marks, incidents, onMark }: { marks: TChartMark[]; incidents: readonly TIncidentSpan[]; onMark: (m: TChartMark) => void }) {
  return (
    <div className="overflow-y-auto border-t" style={{ borderColor: "var(--border)", height: 132 }}>
      <DataTable columns={null} empty="No incidents, activations or overrides in this range." testId="marks-table">
        <IncidentRows incidents={incidents} />
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

/** Served shares per bucket as a table: the chart's numbers for screen readers and for checking against the decision log. */
function ServedTable({ data }: { data: TOverview }) {
  const { served } = data;
  return (
    <details className="border-t px-3 py-2 text-xs" style={{ borderColor: "var(--border)" }}>
      <summary className="cursor-pointer">Served per bucket (from the decision log, {served.bucketSeconds} s buckets)</summary>
      <table className="dense" data-testid="served-table">
        <thead>
          <tr>
            <th>Bucket (UTC)</th>
            <th>Decisions</th>
            {served.providers.map((p) => (
              <th key={p}>{p}</th>
            ))}
            <th>No provider</th>
          </tr>
        </thead>
        <tbody>
          {served.points.map((pt) => (
            <tr
              key={pt.t}
              data-bucket={pt.t}
              data-served={pt.served}
              data-shares={JSON.stringify(Object.fromEntries(served.providers.map((p) => [p, pt.served ? (pt.counts[p] ?? 0) / pt.served : 0])))}
            >
              <td className="mono">{utc(pt.t)}</td>
              <td className="mono">{pt.served}</td>
              {served.providers.map((p) => (
                <td key={p} className="mono">
                  {pct(pt.served ? (pt.counts[p] ?? 0) / pt.served : 0)} ({pt.counts[p] ?? 0})
                </td>
              ))}
              <td className="mono">{pt.unserved}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

/** Served traffic share over the range, the plan on request, incidents and overrides as bands, other marks as dots. */
export function TrafficSharePanel({ data, selection, onMark }: { data: TOverview; selection: TOverviewSelection; onMark: (m: TChartMark) => void }) {
  const router = useRouter();
  const [showPlan, setShowPlan] = useState(false);
  const { operation, region, range } = selection;
  const marks = data.marks.filter((m) => m.kind !== "shift");
  const empty = data.served.points.length === 0 && (!showPlan || data.series.points.length === 0);
  return (
    <section className="panel" aria-label="Traffic share">
      <div className="panel-title flex flex-wrap items-center gap-4">
        <span>
          Traffic share · <span className="mono">{data.operation}</span> · <span className="mono">{data.region}</span>{" "}
          <span className="muted font-normal">· served, from the decision log</span>
        </span>
        <label className="flex items-center gap-1 text-xs font-normal">
          <input type="checkbox" checked={showPlan} onChange={(e) => setShowPlan(e.target.checked)} data-testid="show-plan" />
          show controller plan (dashed)
        </label>
        <MarkLegend />
      </div>
      {empty ? (
        <div className="muted flex items-center justify-center text-sm" style={{ height: CHART_HEIGHT }}>
          No decisions for {data.operation} in {data.region} in the last {RANGES[range].label}.
        </div>
      ) : (
        <ShareChart
          served={data.served}
          plan={data.series}
          showPlan={showPlan}
          bands={data.bands}
          incidents={data.incidents}
          marks={marks}
          height={CHART_HEIGHT}
          onMark={onMark}
          onIncident={(i) => router.push(incidentHref(i))}
          onMoment={(t) => router.push(`/why?${new URLSearchParams({ operation, region, at: String(Math.round(t)) })}`)}
        />
      )}
      <BreakerHeldNote data={data} />
      <ServedTable data={data} />
      <MarksTable marks={marks} incidents={data.incidents} onMark={onMark} />
    </section>
  );
}
