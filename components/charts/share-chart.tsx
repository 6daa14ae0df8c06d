"use client";

import { Area, CartesianGrid, ComposedChart, Line, ReferenceArea, ReferenceDot, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { TChartMark, TIncidentSpan, TMarkKind, TOverrideBand, TServedSeries, TShareSeries } from "@/lib/console/types";
import { pct, utc, utcShort } from "../format";
import { providerColors } from "./provider-colors";

export const MARK_COLORS: Record<TMarkKind, string> = { shift: "var(--warn)", activation: "var(--accent)", override: "var(--bad)", fault: "#a855f7" };

type TProps = {
  served: TServedSeries;
  plan: TShareSeries;
  showPlan: boolean;
  bands: readonly TOverrideBand[];
  incidents: readonly TIncidentSpan[];
  /** Marks other than shift events: those are inside the incident bands. */
  marks: readonly TChartMark[];
  height: number;
  onMark?: (mark: TChartMark) => void;
  onIncident?: (incident: TIncidentSpan) => void;
  /** Clicking the plot (not a mark) asks "what was in effect at this moment?". */
  onMoment?: (t: number) => void;
};

function tickFormat(span: number) {
  return (t: number) => (span > 2 * 86_400_000 ? new Date(t).toISOString().slice(5, 10) : span > 3 * 3_600_000 ? utcShort(t).slice(0, 5) : utcShort(t));
}

/** One row per bucket: served share per provider (key = provider) and the plan (key = `plan:provider`). */
export function chartRows(served: TServedSeries, plan: TShareSeries) {
  const rows = new Map<number, Record<string, number>>();
  for (const p of served.points) {
    const row: Record<string, number> = { t: p.t };
    for (const provider of served.providers) row[provider] = p.served > 0 ? (p.counts[provider] ?? 0) / p.served : 0;
    rows.set(p.t, row);
  }
  for (const p of plan.points) {
    const row = rows.get(p.t) ?? { t: p.t };
    for (const [provider, share] of Object.entries(p.shares)) row[`plan:${provider}`] = share;
    rows.set(p.t, row);
  }
  return [...rows.values()].sort((a, b) => a.t! - b.t!);
}

/** Which colour is which provider: the same colour as on every other chart of the console. */
export function ProviderLegend({ colors }: { colors: ReadonlyMap<string, string> }) {
  return (
    <ul className="flex flex-wrap gap-x-4 gap-y-1 px-3 pt-2 text-xs" aria-label="Providers" data-testid="provider-legend">
      {[...colors].map(([provider, color]) => (
        <li key={provider} className="mono flex items-center gap-1" data-provider={provider} data-color={color}>
          <span aria-hidden style={{ width: 12, height: 8, background: color, display: "inline-block" }} />
          {provider}
        </li>
      ))}
    </ul>
  );
}

/**
 * Served share per provider over time, stacked to 100%, with the controller's plan as dashed lines
 * when asked, overrides and incidents as bands, and a clickable mark for activations and faults.
 */
export function ShareChart({ served, plan, showPlan, bands, incidents, marks, height, onMark, onIncident, onMoment }: TProps) {
  const data = chartRows(served, plan);
  const providers = [...new Set([...served.providers, ...plan.providers])].sort();
  const colors = providerColors(providers);
  const color = (p: string) => colors.get(p)!;
  const span = served.to - served.from;
  return (
    <div>
      <ProviderLegend colors={colors} />
      <div style={{ height }} data-testid="share-chart">
        <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 1200, height }}>
          <ComposedChart
            data={data}
            margin={{ top: 14, right: 16, bottom: 0, left: 0 }}
            onClick={(state) => {
              const label = state?.activeLabel;
              if (onMoment && typeof label === "number") onMoment(label);
            }}
          >
            <CartesianGrid stroke="var(--border)" strokeDasharray="2 4" vertical={false} />
            <XAxis
              dataKey="t"
              type="number"
              scale="time"
              domain={[served.from, served.to]}
              tickFormatter={tickFormat(span)}
              stroke="var(--muted)"
              fontSize={11}
              minTickGap={48}
            />
            <YAxis domain={[0, 1]} tickFormatter={(v: number) => pct(v, 0)} stroke="var(--muted)" fontSize={11} width={40} ticks={[0, 0.25, 0.5, 0.75, 1]} />
            <Tooltip
              isAnimationActive={false}
              contentStyle={{ background: "var(--panel)", border: "1px solid var(--border)", fontSize: 12 }}
              labelFormatter={(t) => utc(Number(t))}
              formatter={(v, name) => [pct(Number(v)), String(name).startsWith("plan:") ? `${String(name).slice(5)} (plan)` : `${String(name)} (served)`]}
            />
            {bands.map((b) => (
              <ReferenceArea
                key={`o-${b.id}`}
                x1={b.start}
                x2={b.end}
                y1={0}
                y2={1}
                fill="var(--bad)"
                fillOpacity={0.1}
                stroke="var(--bad)"
                strokeOpacity={0.4}
                ifOverflow="hidden"
              />
            ))}
            {incidents.map((i) => (
              <ReferenceArea
                key={`i-${i.id}`}
                x1={i.start}
                x2={Math.max(i.end, i.start + served.bucketSeconds * 1000)}
                y1={0}
                y2={1}
                fill="var(--muted)"
                fillOpacity={0.12}
                stroke="var(--warn)"
                strokeDasharray="4 3"
                ifOverflow="hidden"
                style={{ cursor: "pointer" }}
                onClick={() => onIncident?.(i)}
              />
            ))}
            {served.providers.map((p) => (
              <Area
                key={p}
                type="stepAfter"
                dataKey={p}
                stackId="served"
                stroke={color(p)}
                fill={color(p)}
                fillOpacity={0.55}
                isAnimationActive={false}
                connectNulls={false}
              />
            ))}
            {showPlan
              ? plan.providers.map((p) => (
                  <Line
                    key={`plan-${p}`}
                    type="stepAfter"
                    dataKey={`plan:${p}`}
                    stroke={color(p)}
                    strokeWidth={2}
                    strokeDasharray="6 3"
                    dot={false}
                    isAnimationActive={false}
                    connectNulls
                  />
                ))
              : null}
            {marks.map((m) => (
              <ReferenceLine key={`l-${m.kind}-${m.id}`} x={m.at} stroke={MARK_COLORS[m.kind]} strokeDasharray="3 3" ifOverflow="discard" />
            ))}
            {marks.map((m) => (
              <ReferenceDot
                key={`d-${m.kind}-${m.id}`}
                x={m.at}
                y={1}
                r={5}
                fill={MARK_COLORS[m.kind]}
                stroke="var(--panel)"
                ifOverflow="visible"
                style={{ cursor: "pointer" }}
                onClick={() => onMark?.(m)}
              />
            ))}
          </ComposedChart>
        </ResponsiveContainer>
      </div>
    </div>
  );
}
