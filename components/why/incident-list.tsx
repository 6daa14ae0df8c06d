import Link from "next/link";
import type { TIncidentView } from "@/lib/console/incidents/list-incidents";
import type { TShiftEvent } from "@/lib/console/types";
import { metricText } from "@/lib/console/providers/metric-text";
import { DataTable } from "../data-table";
import { decisionsAround } from "../decisions/decisions-around";
import { pct, utc } from "../format";

type TChosen = { operation: string; region: string };

function duration(msSpan: number): string {
  const s = Math.round(msSpan / 1000);
  return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

function BreakerLine({ b }: { b: TIncidentView["breakers"][number] }) {
  return (
    <div className="mono">
      {utc(b.at).slice(11)} breaker {b.provider}
      {b.region ? ` (${b.region})` : ""} {b.from} → <span style={{ color: b.to === "open" ? "var(--bad)" : undefined }}>{b.to}</span>:{" "}
      {b.reason.replaceAll("_", " ")}
      {b.detail ? ` · ${b.detail}` : ""}
    </div>
  );
}

/** The opening that started it and how it ended; the open/half-open cycles in between as one count line. */
function BreakerLines({ breakers }: { breakers: TIncidentView["breakers"] }) {
  if (breakers.length <= 4) return breakers.map((b) => <BreakerLine key={`${b.at}-${b.provider}-${b.to}`} b={b} />);
  const middle = breakers.slice(1, -1);
  const reopenings = middle.filter((b) => b.to === "open").length;
  return (
    <>
      <BreakerLine b={breakers[0]!} />
      <div className="muted">
        … {middle.length} transitions in between: {reopenings} re-openings after failed half-open probes
      </div>
      <BreakerLine b={breakers.at(-1)!} />
    </>
  );
}

/** What tripped the first move: the breaker transitions with their failure counts and errors, and the trigger's own evidence. */
function TriggerEvidence({ incident }: { incident: TIncidentView }) {
  const ev = incident.trigger.evidence;
  return (
    <div className="text-xs" data-testid="incident-evidence">
      <div>
        <span className="muted">Trigger</span> <span className="mono">{incident.trigger.type}</span> {incident.trigger.provider ?? ""}:{" "}
        {incident.trigger.detail}
      </div>
      <BreakerLines breakers={incident.breakers} />
      {ev ? (
        <div className="mono muted">
          {ev.provider}: {ev.eligible ? "eligible" : `ineligible (${ev.failedGates.join(", ") || "gated"})`} · score{" "}
          {ev.score === null ? "–" : ev.score.toFixed(1)} · {ev.sampleCount} samples in the window
          {Object.entries(ev.metrics).map(([k, v]) => ` · ${k} ${metricText(k, v)}`)}
        </div>
      ) : null}
    </div>
  );
}

function EventRows({ events }: { events: TShiftEvent[] }) {
  return (
    <DataTable columns={["Time", "Event", "Provider", "Shares after", "Detail"]} empty="" testId="incident-events">
      {[...events].reverse().map((e) => (
        <tr key={e.id} id={`event-${e.id}`}>
          <td className="mono">{utc(e.at)}</td>
          <td className="mono">
            <Link className="underline" href={`/why?event=${e.id}`}>
              {e.type}
            </Link>
            {e.capped ? <span className="tag ml-1">capped</span> : null}
          </td>
          <td className="mono">{e.provider ?? "–"}</td>
          <td className="mono text-xs">
            {Object.keys(e.sharesTo)
              .sort()
              .map((p) => `${p.replace(/^provider_/, "")} ${pct(e.sharesTo[p], 1)}`)
              .join(" · ")}
          </td>
          <td className="text-xs" style={{ whiteSpace: "normal", maxWidth: 520 }}>
            {e.detail}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function IncidentRow({ incident: i, open }: { incident: TIncidentView; open: boolean }) {
  const movers = (list: { provider: string; from: number; to: number }[]) =>
    list.length === 0 ? "none" : list.map((m) => `${m.provider} ${pct(m.from, 0)} → ${pct(m.to, 0)}`).join(", ");
  return (
    <details
      className="border-t"
      style={{ borderColor: "var(--border)" }}
      open={open}
      id={`incident-${i.id}`}
      data-testid="incident"
      data-start={i.start}
      data-end={i.end}
      data-resolved={i.resolved}
      data-routine={i.routine}
    >
      <summary className="cursor-pointer px-3 py-2 text-sm">
        <span className="mono">{utc(i.start)}</span> → <span className="mono">{utc(i.end)}</span>
        {i.resolved ? null : <span className="tag ml-1">ongoing</span>}
        {i.routine ? <span className="tag ml-1">routine</span> : null} <span className="muted">({duration(i.end - i.start)})</span> ·{" "}
        <span className="mono" style={{ color: i.routine ? "var(--muted)" : "var(--warn)" }}>
          {i.trigger.type}
        </span>{" "}
        <span className="mono">{i.trigger.provider ?? ""}</span> · {i.events.length} events
      </summary>
      <dl className="grid grid-cols-[170px_1fr] gap-x-3 gap-y-1 px-3 pb-2 text-sm">
        <dt className="muted">Operation · regions</dt>
        <dd className="mono">
          {i.operation} · {i.regions.join(", ")}
        </dd>
        <dt className="muted">Losing traffic</dt>
        <dd className="mono">{movers(i.losing.map((l) => ({ provider: l.provider, from: l.from, to: l.lowest })))}</dd>
        <dt className="muted">Gaining traffic</dt>
        <dd className="mono">{movers(i.gaining.map((g) => ({ provider: g.provider, from: g.from, to: g.highest })))}</dd>
        <dt className="muted">Peak shift rate</dt>
        <dd className="mono">{pct(i.peakShiftPerMinute)} of traffic within one minute</dd>
        <dt className="muted">Recovery · failback</dt>
        <dd className="mono">
          {i.recoverySteps} recovery steps · {i.failbackSteps} failback steps
        </dd>
        <dt className="muted">Evidence</dt>
        <dd>
          <TriggerEvidence incident={i} />
        </dd>
      </dl>
      <div className="flex gap-2 px-3 pb-2">
        <Link className="btn" href={`/incidents/${i.id}`} data-testid="why-incident-page">
          Incident page
        </Link>
        <Link className="btn" href={decisionsAround(i.operation, i.regions[0] ?? "", i.start)}>
          Decisions at its start
        </Link>
      </div>
      <EventRows events={i.events} />
    </details>
  );
}

/** The Why page's incidents: one row per incident, its events inside. */
export function IncidentList({ incidents, chosen, openId }: { incidents: TIncidentView[]; chosen: TChosen; openId: string | undefined }) {
  return (
    <section className="panel" aria-label="Incidents" data-testid="why-timeline">
      <h2 className="panel-title">
        Why traffic moved · incidents{" "}
        <span className="muted font-normal">(last 7 days, newest first; a gap of 5 min or another provider in another region starts a new incident)</span>
      </h2>
      {incidents.length === 0 ? (
        <p className="muted px-3 pb-3 text-sm">
          Traffic has not moved for {chosen.operation} in {chosen.region}: no shift events recorded.
        </p>
      ) : (
        incidents.map((i) => <IncidentRow key={i.id} incident={i} open={i.id === openId || i.events.some((e) => e.id === openId)} />)
      )}
    </section>
  );
}
