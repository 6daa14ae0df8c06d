import Link from "next/link";
import type { TMoment } from "@/lib/console/why/get-moment";
import type { TScope, TShiftEvent } from "@/lib/console/types";
import { decisionsAround } from "../decisions/decisions-around";
import { sharesText, utc } from "../format";
import { LiveRefresh } from "../live-refresh";
import { ShiftEvidence } from "../shift-evidence";

/** The parts of "Why traffic moved": scope links, what was in effect at a moment, one event, the timeline. */

type TChosen = { operation: string; region: string };

export function ScopeLinks({ scope, chosen }: { scope: TScope; chosen: TChosen }) {
  const regions = scope.operations.find((o) => o.key === chosen.operation)?.regions ?? [];
  return (
    <div className="flex flex-wrap items-center gap-2 text-xs">
      <span className="muted">Operation</span>
      {scope.operations.map((o) => (
        <Link
          key={o.key}
          className="btn mono"
          aria-current={o.key === chosen.operation ? "page" : undefined}
          href={`/why?${new URLSearchParams({ operation: o.key })}`}
        >
          {o.key}
        </Link>
      ))}
      <span className="muted ml-3">Region</span>
      {regions.map((r) => (
        <Link
          key={r}
          className="btn mono"
          aria-current={r === chosen.region ? "page" : undefined}
          href={`/why?${new URLSearchParams({ operation: chosen.operation, region: r })}`}
        >
          {r}
        </Link>
      ))}
      <span className="ml-auto">
        <LiveRefresh />
      </span>
    </div>
  );
}

export function MomentPanel({ moment, chosen }: { moment: TMoment; chosen: TChosen }) {
  return (
    <section className="panel" data-testid="moment">
      <h2 className="panel-title">
        In effect at <span className="mono">{utc(moment.at)}</span> · <span className="mono">{chosen.operation}</span> ·{" "}
        <span className="mono">{chosen.region}</span>
      </h2>
      <dl className="grid grid-cols-[170px_1fr] gap-x-3 gap-y-1 px-3 pb-3 text-sm">
        <dt className="muted">Shares</dt>
        <dd className="mono">
          {moment.shares ? `${sharesText(moment.shares)} (controller sample ${utc(moment.sharesAt)})` : "no controller sample before this moment"}
        </dd>
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
  );
}

export function EventBlock({ e, highlighted }: { e: TShiftEvent; highlighted: boolean }) {
  return (
    <section
      className="panel"
      id={`event-${e.id}`}
      style={highlighted ? { borderColor: "var(--accent)" } : undefined}
      data-testid={highlighted ? "selected-event" : undefined}
    >
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
