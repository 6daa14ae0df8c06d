import Link from "next/link";
import type { TShiftEvent } from "@/lib/console/types";
import { metricText } from "@/lib/console/providers/metric-text";
import { num, pct } from "./format";

/** The controller's evidence for one shift: per provider, shares before → after, eligibility, score and the metrics behind it. */
export function ShiftEvidence({ event }: { event: TShiftEvent }) {
  const providers = [...new Set([...Object.keys(event.sharesFrom), ...Object.keys(event.sharesTo), ...event.evidence.map((e) => e.provider)])].sort();
  return (
    <table className="dense" data-testid="shift-evidence">
      <thead>
        <tr>
          <th>Provider</th>
          <th>Share before → after</th>
          <th>Eligible</th>
          <th>Score</th>
          <th>Samples</th>
          <th>Metrics</th>
        </tr>
      </thead>
      <tbody>
        {providers.map((p) => {
          const ev = event.evidence.find((e) => e.provider === p);
          const before = event.sharesFrom[p];
          const after = event.sharesTo[p];
          const delta = (after ?? 0) - (before ?? 0);
          return (
            <tr key={p}>
              <td className="mono">{p}</td>
              <td className="mono">
                {pct(before)} → {pct(after)}{" "}
                <span style={{ color: delta < -1e-9 ? "var(--bad)" : delta > 1e-9 ? "var(--ok)" : "var(--muted)" }}>
                  ({delta >= 0 ? "+" : ""}
                  {pct(delta)})
                </span>
              </td>
              <td style={{ color: ev && !ev.eligible ? "var(--bad)" : undefined }}>
                {ev ? (ev.eligible ? "yes" : `no (${ev.failedGates.join(", ") || "gated"})`) : "–"}
              </td>
              <td className="mono">{num(ev?.score ?? null)}</td>
              <td className="mono">{ev?.sampleCount ?? "–"}</td>
              <td className="mono text-xs" style={{ whiteSpace: "normal" }}>
                {ev
                  ? Object.entries(ev.metrics)
                      .map(([k, v]) => `${k} ${metricText(k, v)}`)
                      .join(" · ")
                  : "–"}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** A shift event's type, linking to its explanation, with the "capped" tag when the shift cap limited it. */
export function ShiftEventLink({ event }: { event: Pick<TShiftEvent, "id" | "type" | "capped"> }) {
  return (
    <>
      <Link href={`/why?event=${event.id}`} className="underline">
        {event.type}
      </Link>
      {event.capped ? <span className="tag ml-1">capped</span> : null}
    </>
  );
}
