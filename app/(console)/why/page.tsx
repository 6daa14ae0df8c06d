import Link from "next/link";
import { LiveRefresh } from "@/components/live-refresh";
import { decisionsAround } from "@/components/decisions/decisions-around";
import { sharesText, utc } from "@/components/format";
import { DataTable } from "@/components/data-table";
import { ShiftEventLink, ShiftEvidence } from "@/components/shift-evidence";
import { getMoment } from "@/lib/console/get-moment";
import { getShiftEvent } from "@/lib/console/get-shift-event";
import { listScopes } from "@/lib/console/list-scopes";
import { listShiftEvents } from "@/lib/console/list-shift-events";
import { firstParam } from "@/lib/console/ranges";
import { resolveScope } from "@/lib/console/resolve-scope";
import type { TShiftEvent } from "@/lib/console/types";

export const dynamic = "force-dynamic";

function EventBlock({ e, highlighted }: { e: TShiftEvent; highlighted: boolean }) {
  return (
    <section className="panel" id={`event-${e.id}`} style={highlighted ? { borderColor: "var(--accent)" } : undefined} data-testid={highlighted ? "selected-event" : undefined}>
      <div className="panel-title flex flex-wrap items-center gap-3">
        <span className="mono">{utc(e.at)}</span>
        <span className="mono" style={{ color: "var(--warn)" }}>
          {e.type}
        </span>
        {e.capped ? <span className="tag">capped</span> : null}
        <span className="mono">{e.provider ?? "–"}</span>
        <span className="muted font-normal">
          policy <span className="mono">{e.policyVersion ?? "–"}</span> · leader {e.leaderFrom ?? "–"} → {e.leaderTo ?? "–"}
        </span>
        <span className="ml-auto flex gap-2 font-normal">
          <Link className="btn" href={decisionsAround(e.operation, e.region, e.at)}>
            Decisions ±2 min
          </Link>
          <Link className="btn" href={`/why?${new URLSearchParams({ operation: e.operation, region: e.region, at: String(e.at) })}`}>
            Explain this moment
          </Link>
        </span>
      </div>
      <p className="px-3 pb-2 text-sm">{e.detail}</p>
      <ShiftEvidence event={e} />
    </section>
  );
}

export default async function WhyPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const eventId = firstParam(sp.event);
  const selected = eventId ? await getShiftEvent(eventId) : null;
  const scope = await listScopes();
  const chosen = resolveScope(scope, selected?.operation ?? firstParam(sp.operation), selected?.region ?? firstParam(sp.region));
  if (!chosen) return <p className="panel muted p-4 text-sm">No operations are configured yet.</p>;
  const atParam = Number(firstParam(sp.at));
  const at = Number.isFinite(atParam) && atParam > 0 ? atParam : null;
  const [events, moment] = await Promise.all([
    listShiftEvents({ operation: chosen.operation, region: chosen.region, significantOnly: true, limit: 100 }),
    at !== null ? getMoment(chosen.operation, chosen.region, at) : Promise.resolve(null),
  ]);
  const regions = scope.operations.find((o) => o.key === chosen.operation)?.regions ?? [];
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <span className="muted">Operation</span>
        {scope.operations.map((o) => (
          <Link key={o.key} className="btn mono" aria-pressed={o.key === chosen.operation} href={`/why?${new URLSearchParams({ operation: o.key })}`}>
            {o.key}
          </Link>
        ))}
        <span className="muted ml-3">Region</span>
        {regions.map((r) => (
          <Link key={r} className="btn mono" aria-pressed={r === chosen.region} href={`/why?${new URLSearchParams({ operation: chosen.operation, region: r })}`}>
            {r}
          </Link>
        ))}
        <span className="ml-auto">
          <LiveRefresh />
        </span>
      </div>

      {moment ? (
        <section className="panel" data-testid="moment">
          <h2 className="panel-title">
            In effect at <span className="mono">{utc(moment.at)}</span> · <span className="mono">{chosen.operation}</span> · <span className="mono">{chosen.region}</span>
          </h2>
          <dl className="grid grid-cols-[170px_1fr] gap-x-3 gap-y-1 px-3 pb-3 text-sm">
            <dt className="muted">Shares</dt>
            <dd className="mono">{moment.shares ? `${sharesText(moment.shares)} (controller sample ${utc(moment.sharesAt)})` : "no controller sample before this moment"}</dd>
            <dt className="muted">Active policy</dt>
            <dd className="mono">{moment.policyVersion ? `${moment.policyVersion}, activated ${utc(moment.policyActivatedAt)}` : "none"}</dd>
            <dt className="muted">Overrides in effect</dt>
            <dd>
              {moment.overrides.length === 0
                ? "none"
                : moment.overrides.map((o) => (
                    <div key={o.id}>
                      <span className="mono" style={{ color: "var(--bad)" }}>
                        {o.kind.replaceAll("_", " ")} {o.provider ?? ""}
                      </span>{" "}
                      <span className="muted">{o.reason}</span>
                    </div>
                  ))}
            </dd>
            <dt className="muted">Shift events ±5 min</dt>
            <dd>
              {moment.nearby.length === 0
                ? "none"
                : moment.nearby.map((e) => (
                    <div key={e.id} className="mono">
                      <Link className="underline" href={`/why?event=${e.id}`}>
                        {utc(e.at).slice(11)} {e.type}
                      </Link>{" "}
                      <span className="muted">{e.provider ?? ""}</span>
                    </div>
                  ))}
            </dd>
          </dl>
          <div className="px-3 pb-3">
            <Link className="btn" href={decisionsAround(chosen.operation, chosen.region, moment.at)}>
              Decisions ±2 min
            </Link>
          </div>
        </section>
      ) : null}

      {selected ? <EventBlock e={selected} highlighted /> : null}

      <section className="panel" aria-label="Shift event timeline">
        <h2 className="panel-title">
          Why traffic moved · timeline <span className="muted font-normal">(newest first; probe-floor bookkeeping hidden)</span>
        </h2>
        <DataTable
          columns={["Time", "Event", "Provider", "Shares before → after", "Why (metrics behind it)", "Policy", "Decisions"]}
          empty={`Traffic has not moved for ${chosen.operation} in ${chosen.region}: no shift events recorded.`}
          testId="why-timeline"
        >
          {events.map((e) => {
            const ev = e.evidence.find((x) => x.provider === e.provider);
            return (
              <tr key={e.id} style={e.id === selected?.id ? { background: "var(--bg)" } : undefined}>
                <td className="mono">{utc(e.at)}</td>
                <td className="mono">
                  <ShiftEventLink event={e} />
                </td>
                <td className="mono">{e.provider ?? "–"}</td>
                <td className="mono text-xs">
                  {sharesText(e.sharesFrom)}
                  <br />→ {sharesText(e.sharesTo)}
                </td>
                <td className="text-xs" style={{ whiteSpace: "normal", maxWidth: 520 }}>
                  {e.detail}
                  {ev ? (
                    <div className="muted mono">
                      {ev.provider}: score {ev.score === null ? "–" : ev.score.toFixed(1)}
                      {ev.failedGates.length ? ` · failed ${ev.failedGates.join(", ")}` : ""}
                      {Object.entries(ev.metrics)
                        .map(([k, v]) => ` · ${k} ${typeof v === "number" ? (Number.isInteger(v) ? v : v.toFixed(3)) : String(v)}`)
                        .join("")}
                    </div>
                  ) : null}
                </td>
                <td className="mono">{e.policyVersion ?? "–"}</td>
                <td>
                  <Link className="underline text-xs" href={decisionsAround(e.operation, e.region, e.at)}>
                    ±2 min
                  </Link>
                </td>
              </tr>
            );
          })}
        </DataTable>
      </section>
    </div>
  );
}
