"use client";

import { Area, AreaChart, CartesianGrid, Legend, Line, LineChart, ReferenceArea, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { TTraceMinute } from "@/router-core/replay";
import { ms, pct, providerColor } from "../format";

const HEIGHT = 190;
const axis = { stroke: "var(--muted)", fontSize: 11 } as const;
const tooltip = { isAnimationActive: false, contentStyle: { background: "var(--panel)", border: "1px solid var(--border)", fontSize: 12 } } as const;

type TRow = Record<string, number | null> & { minute: number };

/** Per-minute rows: traffic share, success rate and p95 per provider (null where a provider took no traffic). */
function rowsOf(trace: readonly TTraceMinute[], providers: readonly string[]) {
  const share: TRow[] = [];
  const success: TRow[] = [];
  const latency: TRow[] = [];
  for (const m of trace) {
    const s: TRow = { minute: m.minute };
    const ok: TRow = { minute: m.minute, all: m.requests > 0 ? m.successes / m.requests : null };
    const p95: TRow = { minute: m.minute };
    for (const p of m.providers) {
      s[p.provider] = m.requests > 0 ? p.requests / m.requests : 0;
      ok[p.provider] = p.requests > 0 ? p.successes / p.requests : null;
      p95[p.provider] = p.requests > 0 ? p.p95Ms : null;
    }
    for (const p of providers) s[p] ??= 0;
    share.push(s);
    success.push(ok);
    latency.push(p95);
  }
  return { share, success, latency };
}

/** One line per provider (a gap where it took no traffic), optionally a dashed overall line. */
function ProviderLines({
  rows,
  providers,
  yFormat,
  valueFormat,
  domain,
  overall,
  degradedWindow,
}: {
  rows: TRow[];
  providers: readonly string[];
  yFormat: (v: number) => string;
  valueFormat: (v: number) => string;
  domain?: [number, number];
  overall?: string;
  degradedWindow: { from: number; to: number };
}) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <LineChart data={rows} margin={{ top: 4, right: 12, bottom: 0, left: 0 }}>
        <CartesianGrid stroke="var(--border)" strokeDasharray="2 4" vertical={false} />
        <XAxis dataKey="minute" type="number" domain={[0, Math.max(1, rows.length - 1)]} tickFormatter={(m: number) => `${m}′`} {...axis} />
        <YAxis domain={domain ?? ["auto", "auto"]} tickFormatter={yFormat} width={64} {...axis} />
        <Tooltip
          {...tooltip}
          labelFormatter={(m) => `minute ${m}`}
          formatter={(v, name) => [v === null ? "no traffic" : valueFormat(Number(v)), String(name)]}
        />
        <Legend wrapperStyle={{ fontSize: 11 }} iconSize={8} height={18} verticalAlign="top" />
        <ReferenceArea x1={degradedWindow.from} x2={degradedWindow.to} fill="var(--bad)" fillOpacity={0.08} stroke="none" ifOverflow="hidden" />
        {providers.map((p) => (
          <Line
            key={p}
            type="linear"
            dataKey={p}
            stroke={providerColor(p, providers)}
            dot={false}
            strokeWidth={1.5}
            connectNulls={false}
            isAnimationActive={false}
          />
        ))}
        {overall ? (
          <Line
            type="linear"
            dataKey={overall}
            name="overall"
            stroke="var(--text)"
            strokeDasharray="4 3"
            dot={false}
            strokeWidth={1.5}
            isAnimationActive={false}
          />
        ) : null}
      </LineChart>
    </ResponsiveContainer>
  );
}

function Panel({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <figure className="flex flex-col" style={{ minWidth: 0 }}>
      <figcaption className="muted px-2 text-xs">{title}</figcaption>
      <div style={{ height: HEIGHT }}>{children}</div>
    </figure>
  );
}

/** Shares, success and latency per provider per simulated minute, the degradation window shaded. */
export function TraceCharts({ trace, degraded }: { trace: readonly TTraceMinute[]; degraded: { from: number; to: number } }) {
  const providers = trace[0]?.providers.map((p) => p.provider) ?? [];
  const { share, success, latency } = rowsOf(trace, providers);
  const minuteAxis = <XAxis dataKey="minute" type="number" domain={[0, Math.max(1, trace.length - 1)]} tickFormatter={(m: number) => `${m}′`} {...axis} />;
  const shade = <ReferenceArea x1={degraded.from} x2={degraded.to} fill="var(--bad)" fillOpacity={0.08} stroke="none" ifOverflow="hidden" />;
  const grid = <CartesianGrid stroke="var(--border)" strokeDasharray="2 4" vertical={false} />;
  const legend = <Legend wrapperStyle={{ fontSize: 11 }} iconSize={8} height={18} verticalAlign="top" />;
  return (
    <div className="grid grid-cols-1 gap-3 lg:grid-cols-3" data-testid="trace-charts">
      <Panel title="Traffic share per provider (routed requests / all)">
        <ResponsiveContainer width="100%" height="100%">
          <AreaChart data={share} margin={{ top: 4, right: 12, bottom: 0, left: 0 }}>
            {grid}
            {minuteAxis}
            <YAxis domain={[0, 1]} ticks={[0, 0.25, 0.5, 0.75, 1]} tickFormatter={(v: number) => pct(v, 0)} width={40} {...axis} />
            <Tooltip {...tooltip} labelFormatter={(m) => `minute ${m}`} formatter={(v, name) => [pct(Number(v)), String(name)]} />
            {legend}
            {shade}
            {providers.map((p) => (
              <Area
                key={p}
                type="stepAfter"
                dataKey={p}
                stackId="share"
                stroke={providerColor(p, providers)}
                fill={providerColor(p, providers)}
                fillOpacity={0.55}
                isAnimationActive={false}
              />
            ))}
          </AreaChart>
        </ResponsiveContainer>
      </Panel>
      <Panel title="Success rate per provider, and overall">
        <ProviderLines
          rows={success}
          providers={providers}
          yFormat={(v) => pct(v, 0)}
          valueFormat={(v) => pct(v, 2)}
          domain={[0, 1]}
          overall="all"
          degradedWindow={degraded}
        />
      </Panel>
      <Panel title="p95 latency per provider">
        <ProviderLines rows={latency} providers={providers} yFormat={ms} valueFormat={ms} degradedWindow={degraded} />
      </Panel>
    </div>
  );
}
