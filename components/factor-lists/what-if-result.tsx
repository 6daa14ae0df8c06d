"use client";

import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { TWhatIfView } from "@/lib/console/evaluation/evaluation-types";
import { pct, providerColor, utc, utcShort } from "../format";
import { WhatIfCompliance, WhatIfCoverage } from "./what-if-compliance";

const CHART_HEIGHT = 220;

/** A share difference in percentage points, signed; a difference that rounds to zero reads "0.0", never "-0.0". */
function pts(d: number, digits: number): string {
  const t = (d * 100).toFixed(digits);
  return Number(t) === 0 ? `${(0).toFixed(digits)} pts` : `${d > 0 ? "+" : ""}${t} pts`;
}

type TWhatIfResult = NonNullable<TWhatIfView["result"]>;

function WhatIfChart({ result }: { result: TWhatIfResult }) {
  const providers = result.providers.map((p) => p.provider);
  // Minutes without decisions are gaps, not 0% for everyone; the axis starts at the first recorded minute.
  const data = result.minutes.map((m) => {
    const row: Record<string, number | null> = { t: m.at };
    for (const p of providers) {
      row[`${p} recorded`] = m.requests > 0 ? (m.actual[p] ?? 0) : null;
      row[`${p} projected`] = m.requests > 0 ? (m.projected[p] ?? 0) : null;
    }
    return row;
  });
  const first = result.minutes.find((m) => m.requests > 0)?.at ?? result.from;
  return (
    <div style={{ height: CHART_HEIGHT }} data-testid="what-if-chart">
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={data} margin={{ top: 4, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="2 4" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            scale="time"
            domain={[first, result.to]}
            tickFormatter={(t: number) => utcShort(t).slice(0, 5)}
            stroke="var(--muted)"
            fontSize={11}
            minTickGap={48}
          />
          <YAxis domain={[0, 1]} ticks={[0, 0.25, 0.5, 0.75, 1]} tickFormatter={(v: number) => pct(v, 0)} stroke="var(--muted)" fontSize={11} width={40} />
          <Tooltip
            isAnimationActive={false}
            contentStyle={{ background: "var(--panel)", border: "1px solid var(--border)", fontSize: 12 }}
            labelFormatter={(t) => utc(Number(t))}
            formatter={(v, name) => [v === null ? "no decisions" : pct(Number(v)), String(name)]}
          />
          <Legend wrapperStyle={{ fontSize: 11 }} iconSize={8} height={18} verticalAlign="top" />
          {providers.flatMap((p) => [
            <Line
              key={`${p}-r`}
              type="stepAfter"
              dataKey={`${p} recorded`}
              stroke={providerColor(p, providers)}
              strokeWidth={1.5}
              dot={false}
              isAnimationActive={false}
            />,
            <Line
              key={`${p}-p`}
              type="stepAfter"
              dataKey={`${p} projected`}
              stroke={providerColor(p, providers)}
              strokeWidth={1.5}
              strokeDasharray="5 3"
              dot={false}
              isAnimationActive={false}
            />,
          ])}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

/**
 * Success with this version next to what happened. Where a provider the version uses was never
 * observed, a single projected figure would credit it with health nobody measured: the row shows
 * the range of outcomes instead, from it failing every call to it answering every call.
 */
function SuccessRow({ result }: { result: TWhatIfResult }) {
  const range = result.assumed.length > 0 ? (result.unknown?.successRange ?? null) : null;
  const actual = result.actualSuccessRate;
  return (
    <tr style={{ borderTop: "2px solid var(--border)" }} data-testid="what-if-success">
      <td>Success</td>
      <td className="mono">{pct(actual, 2)}</td>
      {range ? (
        <>
          <td className="mono" style={{ color: "var(--warn)" }}>
            {pct(range.low, 2)} – {pct(range.high, 2)} (unknown)
          </td>
          <td className="mono muted">{actual === null ? "–" : `${pts(range.low - actual, 2)} to ${pts(range.high - actual, 2)}`}</td>
        </>
      ) : result.assumed.length > 0 ? (
        <>
          <td className="mono" style={{ color: "var(--warn)" }}>
            unknown
          </td>
          <td className="mono muted">–</td>
        </>
      ) : (
        <>
          <td className="mono">{pct(result.projectedSuccessRate, 2)}</td>
          <td className="mono muted">{actual === null ? "–" : pts(result.projectedSuccessRate - actual, 2)}</td>
        </>
      )}
    </tr>
  );
}

/** Shares with this version against what happened, per provider, and the success rate. */
export function WhatIfResult({ result }: { result: TWhatIfResult }) {
  return (
    <div className="grid grid-cols-1 gap-3 xl:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
      <div className="flex flex-col gap-2">
        <p className="text-xs">
          <span className="mono">{utc(result.from)}</span> – <span className="mono">{utc(result.to)}</span> · {result.requests.toLocaleString("en-US")} recorded
          decisions
        </p>
        <WhatIfCoverage result={result} />
        <table className="dense" data-testid="what-if-table">
          <thead>
            <tr>
              <th>Provider</th>
              <th>What happened</th>
              <th>With this version</th>
              <th>Δ</th>
            </tr>
          </thead>
          <tbody>
            {result.providers.map((p) => {
              const d = p.projectedShare - p.actualShare;
              return (
                <tr key={p.provider}>
                  <td className="mono">{p.provider}</td>
                  <td className="mono">{pct(p.actualShare)}</td>
                  <td className="mono">{pct(p.projectedShare)}</td>
                  <td className="mono" style={{ color: Math.abs(d) >= 0.05 ? "var(--warn)" : "var(--muted)" }}>
                    {pts(d, 1)}
                  </td>
                </tr>
              );
            })}
            <SuccessRow result={result} />
          </tbody>
        </table>
        <p className="muted text-xs">
          Recorded per-minute outcomes of each provider and region drive the simulated providers; the recorded request counts are the traffic. Solid lines: what
          happened; dashed: this version.
        </p>
        <WhatIfCompliance compliance={result.compliance} />
        {result.assumed.length > 0 ? (
          <p className="text-xs" style={{ color: "var(--warn)" }} data-testid="what-if-unknown">
            Unknown: {result.assumed.map((a) => `${a.provider} in ${a.region}`).join(", ")} had no recorded calls in this range, so success is given as the
            range from {result.assumed.length > 1 ? "them" : "it"} failing every call to answering every call, and no single figure is credited. The share chart
            assumes typical healthy behaviour for {result.assumed.length > 1 ? "them" : "it"}.
          </p>
        ) : null}
      </div>
      <WhatIfChart result={result} />
    </div>
  );
}
