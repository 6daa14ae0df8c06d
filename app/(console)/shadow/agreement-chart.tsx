"use client";

import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { TAgreementPoint } from "@/lib/console/shadow/get-shadow-view";
import { pct, utc, utcShort } from "@/components/format";

/** Share of compared decisions where the shadow version picked the same provider, per time bucket. */
export function AgreementChart({ points, from, to, height }: { points: TAgreementPoint[]; from: number; to: number; height: number }) {
  const span = to - from;
  return (
    <div style={{ height }} data-testid="agreement-chart">
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={points} margin={{ top: 12, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="2 4" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            scale="time"
            domain={[from, to]}
            tickFormatter={(t: number) => (span > 2 * 86_400_000 ? new Date(t).toISOString().slice(5, 10) : utcShort(t).slice(0, 5))}
            stroke="var(--muted)"
            fontSize={11}
            minTickGap={48}
          />
          <YAxis domain={[0, 1]} tickFormatter={(v: number) => pct(v, 0)} stroke="var(--muted)" fontSize={11} width={40} ticks={[0, 0.25, 0.5, 0.75, 1]} />
          <Tooltip
            isAnimationActive={false}
            contentStyle={{ background: "var(--panel)", border: "1px solid var(--border)", fontSize: 12 }}
            labelFormatter={(t) => utc(Number(t))}
            formatter={(v, _name, item) => {
              const p = item.payload as TAgreementPoint;
              return [`${pct(Number(v))} (${p.agreed}/${p.compared})`, "agreement"];
            }}
          />
          <Line
            type="stepAfter"
            dataKey="rate"
            stroke="var(--accent)"
            strokeWidth={2}
            dot={points.length < 20}
            connectNulls={false}
            isAnimationActive={false}
          />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
