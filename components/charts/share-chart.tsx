"use client";

import { Area, AreaChart, CartesianGrid, ReferenceDot, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { TChartMark, TMarkKind, TShareSeries } from "@/lib/console/types";
import { pct, providerColor, utc, utcShort } from "../format";

export const MARK_COLORS: Record<TMarkKind, string> = { shift: "var(--warn)", activation: "var(--accent)", override: "var(--bad)", fault: "#a855f7" };

type TProps = {
  series: TShareSeries;
  marks: readonly TChartMark[];
  height: number;
  onMark?: (mark: TChartMark) => void;
  /** Clicking the plot (not a mark) asks "what was in effect at this moment?". */
  onMoment?: (t: number) => void;
};

function tickFormat(span: number) {
  return (t: number) => (span > 2 * 86_400_000 ? new Date(t).toISOString().slice(5, 10) : span > 3 * 3_600_000 ? utcShort(t).slice(0, 5) : utcShort(t));
}

/** Traffic share per provider over time, stacked to 100%, with a clickable mark for every event that can explain a bend. */
export function ShareChart({ series, marks, height, onMark, onMoment }: TProps) {
  const data = series.points.map((p) => ({ t: p.t, ...p.shares }));
  const span = series.to - series.from;
  return (
    <div style={{ height }} data-testid="share-chart">
      <ResponsiveContainer width="100%" height="100%">
        <AreaChart
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
            domain={[series.from, series.to]}
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
            formatter={(v, name) => [pct(Number(v)), String(name)]}
          />
          {series.providers.map((p) => (
            <Area
              key={p}
              type="stepAfter"
              dataKey={p}
              stackId="share"
              stroke={providerColor(p, series.providers)}
              fill={providerColor(p, series.providers)}
              fillOpacity={0.55}
              isAnimationActive={false}
            />
          ))}
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
        </AreaChart>
      </ResponsiveContainer>
    </div>
  );
}
