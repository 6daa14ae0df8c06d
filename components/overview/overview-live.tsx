"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { RANGES, RANGE_KEYS, type TRangeKey } from "@/lib/console/ranges";
import type { TChartMark, TOverview, TScope, TShiftEvent } from "@/lib/console/types";
import { MARK_COLORS, ShareChart } from "../charts/share-chart";
import { decisionsAround } from "../decisions/decisions-around";
import { DataTable } from "../data-table";
import { Drawer } from "../drawer";
import { fetchJson } from "../fetch-json";
import { age, sharesText, utc } from "../format";
import { ProviderHealthTable } from "../providers/health-table";
import { ShiftEventLink, ShiftEvidence } from "../shift-evidence";

const CHART_HEIGHT = 300;

function MarkExplanation({ mark, operation, region }: { mark: TChartMark; operation: string; region: string }) {
  const shift = useQuery({
    queryKey: ["shift-event", mark.id],
    queryFn: () => fetchJson<{ event: TShiftEvent }>(`/api/console/shift-events/${mark.id}`),
    enabled: mark.kind === "shift",
    refetchInterval: false,
  });
  return (
    <div className="flex flex-col gap-3 text-sm">
      <div className="grid grid-cols-[140px_1fr] gap-x-3 gap-y-1">
        <span className="muted">Kind</span>
        <span style={{ color: MARK_COLORS[mark.kind] }}>{mark.kind}</span>
        <span className="muted">Time</span>
        <span className="mono">{utc(mark.at)}</span>
        <span className="muted">Event</span>
        <span className="mono">{mark.label}</span>
        <span className="muted">Detail</span>
        <span>{mark.detail}</span>
        {shift.data ? (
          <>
            <span className="muted">Reason</span>
            <span>{shift.data.event.detail}</span>
            <span className="muted">Policy version</span>
            <span className="mono">{shift.data.event.policyVersion ?? "–"}</span>
            <span className="muted">Leader</span>
            <span className="mono">
              {shift.data.event.leaderFrom ?? "–"} → {shift.data.event.leaderTo ?? "–"}
            </span>
          </>
        ) : null}
      </div>
      {mark.kind === "shift" ? (
        <div className="panel" style={{ minHeight: 120 }}>
          {shift.data ? <ShiftEvidence event={shift.data.event} /> : <div className="skeleton m-3" style={{ height: 96 }} />}
        </div>
      ) : null}
      <div className="flex gap-2">
        <Link className="btn" href={mark.href}>
          Full explanation
        </Link>
        <Link className="btn" href={decisionsAround(operation, region, mark.at)}>
          Decisions ±2 min
        </Link>
        <Link className="btn" href={`/why?operation=${encodeURIComponent(operation)}&region=${encodeURIComponent(region)}&at=${mark.at}`}>
          Explain this moment
        </Link>
      </div>
    </div>
  );
}

export function OverviewLive({ scope, initial, range: initialRange }: { scope: TScope; initial: TOverview; range: TRangeKey }) {
  const [operation, setOperation] = useState(initial.operation);
  const [region, setRegion] = useState(initial.region);
  const [range, setRange] = useState<TRangeKey>(initialRange);
  const [mark, setMark] = useState<TChartMark | null>(null);
  const router = useRouter();
  const closeMark = useCallback(() => setMark(null), []);
  const isInitial = operation === initial.operation && region === initial.region && range === initialRange;
  const query = useQuery({
    queryKey: ["overview", operation, region, range],
    queryFn: () => fetchJson<TOverview>(`/api/console/overview?${new URLSearchParams({ operation, region, range })}`),
    initialData: isInitial ? initial : undefined,
    initialDataUpdatedAt: isInitial ? initial.generatedAt : undefined,
  });
  const data = query.data ?? initial;
  const regions = scope.operations.find((o) => o.key === operation)?.regions ?? [];

  const select = (next: { operation?: string; region?: string; range?: TRangeKey }) => {
    const op = next.operation ?? operation;
    const opRegions = scope.operations.find((o) => o.key === op)?.regions ?? [];
    const r = next.region ?? (opRegions.includes(region) ? region : (opRegions[0] ?? region));
    const rg = next.range ?? range;
    setOperation(op);
    setRegion(r);
    setRange(rg);
    // Keep the selection in the address bar so a link or reload shows the same view.
    window.history.replaceState(null, "", `/?${new URLSearchParams({ operation: op, region: r, range: rg })}`);
  };

  // The chart plots planned shares; a provider behind an open breaker keeps one (its probe floor) but decide sends it nothing.
  const breakerHeld = data.health.filter((h) => h.breaker !== "closed" && (h.share ?? 0) > 0);
  const health = [...data.health].sort((a, b) => (b.share ?? -1) - (a.share ?? -1) || a.provider.localeCompare(b.provider));
  return (
    <div className="flex flex-col gap-4" data-testid="overview">
      <div className="flex flex-wrap items-center gap-3">
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
          {query.isError ? <span style={{ color: "var(--bad)" }}> · refresh failed, showing last data</span> : null}
        </span>
      </div>

      <section className="panel" aria-label="Traffic share">
        <div className="panel-title flex items-center gap-4">
          <span>
            Traffic share · <span className="mono">{data.operation}</span> · <span className="mono">{data.region}</span>
          </span>
          <span className="muted flex gap-3 text-xs font-normal">
            {(["shift", "activation", "override", "fault"] as const).map((k) => (
              <span key={k} className="flex items-center gap-1">
                <span style={{ width: 8, height: 8, borderRadius: 4, background: MARK_COLORS[k], display: "inline-block" }} />
                {k === "shift" ? "shift event" : k === "activation" ? "policy activation" : k === "override" ? "override" : "injected fault"}
              </span>
            ))}
            <span>click a dot to explain it, the plot to explain that moment</span>
          </span>
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
            onMark={setMark}
            onMoment={(t) => router.push(`/why?${new URLSearchParams({ operation, region, at: String(Math.round(t)) })}`)}
          />
        )}
        {breakerHeld.length > 0 ? (
          <div className="border-t px-3 py-2 text-xs" style={{ borderColor: "var(--border)" }} data-testid="breaker-held-note">
            {breakerHeld.map((h) => (
              <div key={h.provider}>
                <span className="mono">{h.provider}</span>: breaker <span style={{ color: "var(--bad)" }}>{h.breaker.replace("_", "-")}</span>, so it
                serves {h.breaker === "open" ? "0" : "only its probe calls"}; the chart plots its planned{" "}
                <span className="mono">{((h.share ?? 0) * 100).toFixed(1)}%</span>, which falls at the capped rate to the probe floor that carries its half-open probes.
              </div>
            ))}
          </div>
        ) : null}
        <div className="overflow-y-auto border-t" style={{ borderColor: "var(--border)", height: 132 }}>
          <DataTable columns={null} empty="No shift events, activations or overrides in this range." testId="marks-table">
            {[...data.marks].reverse().map((m) => (
              <tr key={`${m.kind}-${m.id}`}>
                <td className="mono" style={{ width: 180 }}>
                  {utc(m.at)}
                </td>
                <td style={{ width: 90, color: MARK_COLORS[m.kind] }}>{m.kind}</td>
                <td>
                  <button type="button" className="mono underline" onClick={() => setMark(m)}>
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
      </section>

      <div className="grid gap-4 lg:grid-cols-[3fr_2fr]">
        <section className="panel" aria-label="Provider health">
          <div className="panel-title">
            Providers in <span className="mono">{data.region}</span> <span className="muted font-normal">· last {data.windowMinutes} min, merged across instances</span>
          </div>
          <ProviderHealthTable rows={health} now={data.generatedAt} byRegion={false} testId="health-table" empty={`No provider serves ${data.operation} in ${data.region}.`} />
        </section>
        <section className="panel" aria-label="Active overrides">
          <div className="panel-title">Active overrides</div>
          <DataTable columns={null} empty="None: routing is automatic." testId="overrides-table">
            {data.overrides.map((o) => (
              <tr key={o.id}>
                <td style={{ color: "var(--bad)" }}>{o.kind.replaceAll("_", " ")}</td>
                <td className="mono">{o.provider ?? "–"}</td>
                <td className="mono">{o.region ?? "all regions"}</td>
                <td className="muted" style={{ whiteSpace: "normal" }}>
                  {o.reason}
                  <div className="text-xs">
                    since {age(o.createdAt, data.generatedAt)} · {o.expiresAt ? `expires ${utc(o.expiresAt)}` : "no expiry"}
                  </div>
                </td>
              </tr>
            ))}
          </DataTable>
        </section>
      </div>

      <section className="panel" aria-label="Recent shift events">
        <div className="panel-title flex">
          Recent shift events
          <Link href={`/why?${new URLSearchParams({ operation, region })}`} className="ml-auto text-xs font-normal underline">
            all in Why traffic moved (g w)
          </Link>
        </div>
        <DataTable
          columns={["Time", "Event", "Provider", "Shares after", "Policy", "Detail"]}
          empty={`No shift events yet for ${data.operation} in ${data.region}.`}
          testId="recent-shifts"
        >
          {data.shifts.map((s) => (
            <tr key={s.id}>
              <td className="mono">{utc(s.at)}</td>
              <td className="mono">
                <ShiftEventLink event={s} />
              </td>
              <td className="mono">{s.provider ?? "–"}</td>
              <td className="mono">{sharesText(s.sharesTo)}</td>
              <td className="mono">{s.policyVersion ?? "–"}</td>
              <td className="muted" style={{ whiteSpace: "normal" }}>
                {s.detail}
              </td>
            </tr>
          ))}
        </DataTable>
      </section>

      <Drawer title={mark ? `${mark.label} · ${utc(mark.at)}` : ""} open={mark !== null} onClose={closeMark}>
        {mark ? <MarkExplanation mark={mark} operation={operation} region={region} /> : null}
      </Drawer>
    </div>
  );
}
