import "server-only";
import { getPrisma } from "@/lib/db";
import { incidentHoldsEvent, listIncidentSpans } from "@/lib/incidents/index";
import { movers, peakPerMinute, type TIncident } from "./group-incidents";
import { listShiftEvents } from "../why/list-shift-events";

export type TIncidentBreaker = { at: number; provider: string; region: string | null; from: string; to: string; reason: string; detail: string };

/** An incident with the breaker transitions recorded with it: what tripped the move. */
export type TIncidentView = TIncident & { breakers: TIncidentBreaker[] };

const RECOVERY = new Set(["recovery_detected", "cooldown_started", "recovery_aborted"]);
const FAILBACK = new Set(["failback_step", "full_failback_completed"]);

/**
 * The stored incidents of (operation, region) over the last `days`, newest first, each with the
 * shift events the tracker put in its steps and its breaker transitions. The incidents come from lib/incidents, so
 * start, cause and end are the same whatever range another page shows. Bounded: at most 50
 * incidents and `maxEvents` shift events are read.
 */
export async function listIncidents(
  operation: string,
  region: string,
  opts: { now?: number; days?: number; maxEvents?: number } = {},
): Promise<TIncidentView[]> {
  const now = opts.now ?? Date.now();
  const from = now - (opts.days ?? 7) * 86_400_000;
  const prisma = getPrisma();
  const spans = await listIncidentSpans(prisma, operation, region, from, now, 50);
  if (spans.length === 0) return [];
  const earliest = Math.min(...spans.map((s) => s.startedAt));
  const [events, facts] = await Promise.all([
    listShiftEvents({ operation, region, from: earliest, to: now, significantOnly: true, limit: opts.maxEvents ?? 5000 }),
    prisma.incidentFact.findMany({
      where: { incidentId: { in: spans.map((s) => s.id) }, kind: "breaker" },
      orderBy: [{ at: "asc" }, { id: "asc" }],
      take: 500,
    }),
  ]);
  return spans.map((s) => {
    const end = s.endedAt ?? now;
    const mine = events.filter((e) => e.at >= s.startedAt && e.at <= end && incidentHoldsEvent(s.eventRanges, e)).sort((a, b) => a.at - b.at);
    const stats = movers(mine);
    const last = mine.at(-1)?.at ?? s.lastFactAt;
    const incident: TIncident = {
      id: s.id,
      operation: s.operation,
      regions: [s.region],
      start: s.startedAt,
      end: s.endedAt ?? Math.max(last, s.startedAt),
      durationMs: (s.endedAt ?? Math.max(last, s.startedAt)) - s.startedAt,
      resolved: s.endedAt !== null,
      losing: stats.losing,
      gaining: stats.gaining,
      trigger: { type: s.causeKind, provider: s.provider, detail: s.causeDetail, evidence: null },
      routine: false,
      peakShiftPerMinute: peakPerMinute(mine),
      recoverySteps: mine.filter((e) => RECOVERY.has(e.type)).length,
      failbackSteps: mine.filter((e) => FAILBACK.has(e.type)).length,
      events: mine,
    };
    const breakers = facts
      .filter((f) => f.incidentId === s.id)
      .map((f) => {
        const d = (f.data ?? {}) as { from?: string; to?: string; reason?: string; detail?: string };
        return {
          at: f.at.getTime(),
          provider: f.providerKey ?? "",
          region: s.region,
          from: d.from ?? "",
          to: d.to ?? "",
          reason: d.reason ?? "",
          detail: d.detail ?? "",
        };
      });
    return { ...incident, breakers };
  });
}
