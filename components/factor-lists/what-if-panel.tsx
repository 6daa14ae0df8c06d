"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { TWhatIfView } from "@/lib/console/evaluation-types";
import { fetchJson } from "../fetch-json";
import { pct, providerColor, utc, utcShort } from "../format";
import { ControlErrorView } from "../providers/control-error";
import { controlRequest, type TControlError } from "../providers/control-request";
import { ReplayProgress } from "../replay/replay-progress";

const HOURS = [1, 3, 6] as const;
const CHART_HEIGHT = 220;
const BODY_MIN_HEIGHT = 330;

function WhatIfChart({ result }: { result: NonNullable<TWhatIfView["result"]> }) {
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
          <XAxis dataKey="t" type="number" scale="time" domain={[first, result.to]} tickFormatter={(t: number) => utcShort(t).slice(0, 5)} stroke="var(--muted)" fontSize={11} minTickGap={48} />
          <YAxis domain={[0, 1]} ticks={[0, 0.25, 0.5, 0.75, 1]} tickFormatter={(v: number) => pct(v, 0)} stroke="var(--muted)" fontSize={11} width={40} />
          <Tooltip isAnimationActive={false} contentStyle={{ background: "var(--panel)", border: "1px solid var(--border)", fontSize: 12 }} labelFormatter={(t) => utc(Number(t))} formatter={(v, name) => [v === null ? "no decisions" : pct(Number(v)), String(name)]} />
          <Legend wrapperStyle={{ fontSize: 11 }} iconSize={8} height={18} verticalAlign="top" />
          {providers.flatMap((p) => [
            <Line key={`${p}-r`} type="stepAfter" dataKey={`${p} recorded`} stroke={providerColor(p, providers)} strokeWidth={1.5} dot={false} isAnimationActive={false} />,
            <Line key={`${p}-p`} type="stepAfter" dataKey={`${p} projected`} stroke={providerColor(p, providers)} strokeWidth={1.5} strokeDasharray="5 3" dot={false} isAnimationActive={false} />,
          ])}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

/**
 * The approval page's what-if: this version replayed (router-core's decide and controller, on a
 * worker thread) over the operation's recorded traffic of the last hours, next to what the
 * active version actually did. Someone who may run replays starts it by opening the page; the
 * result is shared with everyone who opens it within the same 5 minutes.
 */
export function WhatIfPanel({ versionId, operation, canRun }: { versionId: string; operation: string; canRun: boolean }) {
  const [hours, setHours] = useState<(typeof HOURS)[number]>(3);
  const client = useQueryClient();
  const query = useQuery({
    queryKey: ["what-if", versionId, hours],
    queryFn: () => fetchJson<TWhatIfView>(`/api/console/what-if?${new URLSearchParams({ version: versionId, hours: String(hours) })}`),
    // Also polls while a run is expected but not yet visible: a GET sent before the start POST
    // can answer after it and overwrite the queued status with "nothing yet", which would
    // otherwise stop the polling for good.
    refetchInterval: (q) => {
      const d = q.state.data;
      if (d?.status?.state === "running" || d?.status?.state === "queued") return 1_000;
      return canRun && !d?.result && !d?.unavailable && d?.status?.state !== "failed" ? 1_000 : false;
    },
  });
  // Opening the page (or choosing other hours) asks for the run; the same inputs within 5 minutes get the same job.
  const start = useQuery({
    queryKey: ["what-if-start", versionId, hours],
    queryFn: async () => {
      const res = await controlRequest<TWhatIfView>("/api/console/what-if", "POST", { version: versionId, hours });
      if (!res.ok) throw Object.assign(new Error(res.error.message), { control: res.error });
      client.setQueryData(["what-if", versionId, hours], res.value);
      return res.value;
    },
    enabled: canRun,
    // Asks again while the page knows of no run, no result and no reason: the replayed range
    // moves on every 5 minutes, and a page left open past that would otherwise wait for good.
    refetchInterval: () => (query.data && !query.data.status && !query.data.result && !query.data.unavailable ? 15_000 : false),
    staleTime: 300_000,
    retry: false,
  });
  const error: TControlError | null = start.error ? ((start.error as Error & { control?: TControlError }).control ?? null) : null;

  const view = query.data;
  const result = view?.result ?? null;
  const running = view?.status?.state === "running" || view?.status?.state === "queued";
  return (
    <section className="panel" aria-label="What-if replay" data-testid="what-if">
      <div className="panel-title flex flex-wrap items-center gap-3">
        <span>
          What-if · this version over the last recorded <span className="mono">{operation}</span> traffic, next to what happened
        </span>
        <span className="flex gap-1 font-normal" role="group" aria-label="Hours of recorded traffic">
          {HOURS.map((h) => (
            <button key={h} type="button" className="btn" aria-pressed={h === hours} onClick={() => setHours(h)}>
              {h} h
            </button>
          ))}
        </span>
        <span className="ml-auto font-normal">
          <ReplayProgress status={view?.status ?? null} finishedAt={result?.finishedAt ?? null} testId="what-if-status" />
        </span>
      </div>
      <div className="px-3 pb-3" style={{ minHeight: BODY_MIN_HEIGHT }}>
        <ControlErrorView error={error} />
        {query.isError ? (
          <p className="text-xs" style={{ color: "var(--bad)" }} role="alert">
            Could not load the what-if: {query.error.message}
          </p>
        ) : null}
        {view?.unavailable ? (
          <p className="muted py-6 text-center text-sm" data-testid="what-if-unavailable">
            No what-if: {view.unavailable}.
          </p>
        ) : !result ? (
          <p className="muted py-6 text-center text-sm" data-testid="what-if-empty">
            {query.isPending
              ? "Loading…"
              : running
                ? "Replaying the recorded traffic on a worker thread…"
                : view?.status?.state === "failed"
                  ? `The replay failed: ${view.status.error}`
                  : canRun
                    ? "Starting the replay…"
                    : "Not computed yet: it runs when a policy author, compliance or an approver opens this page."}
          </p>
        ) : (
          <div className="grid grid-cols-1 gap-3 xl:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
            <div className="flex flex-col gap-2">
              <p className="text-xs">
                <span className="mono">{utc(result.from)}</span> – <span className="mono">{utc(result.to)}</span> · {result.requests.toLocaleString("en-US")} recorded decisions
              </p>
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
                          {d >= 0 ? "+" : ""}
                          {(d * 100).toFixed(1)} pts
                        </td>
                      </tr>
                    );
                  })}
                  <tr style={{ borderTop: "2px solid var(--border)" }}>
                    <td>Success</td>
                    <td className="mono">{pct(result.actualSuccessRate, 2)}</td>
                    <td className="mono">{pct(result.projectedSuccessRate, 2)}</td>
                    <td className="mono muted">
                      {result.actualSuccessRate === null ? "–" : `${result.projectedSuccessRate >= result.actualSuccessRate ? "+" : ""}${((result.projectedSuccessRate - result.actualSuccessRate) * 100).toFixed(2)} pts`}
                    </td>
                  </tr>
                </tbody>
              </table>
              <p className="muted text-xs">
                Recorded per-minute outcomes of each provider and region drive the simulated providers; the recorded request counts are the traffic. Solid lines: what happened; dashed:
                this version.
              </p>
              {result.assumed.length > 0 ? (
                <p className="text-xs" style={{ color: "var(--warn)" }}>
                  Assumed healthy where nothing was recorded: {result.assumed.map((a) => `${a.provider} in ${a.region} (${a.minutes} min)`).join(", ")}.
                </p>
              ) : null}
            </div>
            <WhatIfChart result={result} />
          </div>
        )}
      </div>
    </section>
  );
}
