"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import type { TChartMark, TShiftEvent } from "@/lib/console/types";
import { MARK_COLORS } from "../charts/share-chart";
import { decisionsAround } from "../decisions/decisions-around";
import { fetchJson } from "../fetch-json";
import { utc } from "../format";
import { ShiftEvidence } from "../shift-evidence";

/** The drawer's content for a chart mark: what it was, its shift's reason and evidence, and where to look next. */
export function MarkExplanation({ mark, operation, region }: { mark: TChartMark; operation: string; region: string }) {
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
