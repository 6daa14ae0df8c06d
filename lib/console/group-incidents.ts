/**
 * Groups shift events into incidents. The controller writes an event per tick while it moves
 * traffic, so one outage is dozens of near-identical rows; on-call wants one row per incident
 * with its start, end, who lost and gained traffic, what triggered it and how it recovered.
 * Pure (types only from ./types) so the Why page, the chart and unit tests share it.
 */
import type { TEvidence, TShiftEvent, TShares } from "./types";

export type TIncident = {
  /** The id of its first event: stable while the incident grows. */
  id: string;
  operation: string;
  regions: string[];
  start: number;
  /** Time of its last event. */
  end: number;
  durationMs: number;
  /** True once the events stop for longer than the gap or failback completed. */
  resolved: boolean;
  /** Providers whose share fell below where it stood when the incident began, largest loss first. */
  losing: { provider: string; from: number; lowest: number }[];
  gaining: { provider: string; from: number; highest: number }[];
  trigger: { type: string; provider: string | null; detail: string; evidence: TEvidence | null };
  /** Largest share moved within any 60 s of the incident (sum of the increases), 0–1 per minute. */
  peakShiftPerMinute: number;
  recoverySteps: number;
  failbackSteps: number;
  /** Oldest first. */
  events: TShiftEvent[];
};

/** Events further apart than this start a new incident: the controller ticks every few seconds while it moves traffic. */
export const INCIDENT_GAP_MS = 5 * 60_000;
const EPS = 1e-6;
const RECOVERY = new Set(["recovery_detected", "cooldown_started", "recovery_aborted"]);
const FAILBACK = new Set(["failback_step", "full_failback_completed"]);

function moved(e: TShiftEvent): number {
  let sum = 0;
  for (const p of Object.keys(e.sharesTo)) sum += Math.max(0, (e.sharesTo[p] ?? 0) - (e.sharesFrom[p] ?? 0));
  return sum;
}

function peakPerMinute(events: TShiftEvent[]): number {
  let peak = 0;
  let lo = 0;
  let windowSum = 0;
  for (let hi = 0; hi < events.length; hi++) {
    windowSum += moved(events[hi]!);
    while (events[hi]!.at - events[lo]!.at > 60_000) windowSum -= moved(events[lo++]!);
    peak = Math.max(peak, windowSum);
  }
  return peak;
}

function movers(events: TShiftEvent[]) {
  const initial: TShares = {};
  const low: TShares = {};
  const high: TShares = {};
  for (const e of events) {
    for (const [p, v] of Object.entries(e.sharesFrom)) if (!(p in initial)) initial[p] = v;
    for (const [p, v] of Object.entries(e.sharesTo)) {
      if (!(p in initial)) initial[p] = 0;
      low[p] = Math.min(low[p] ?? initial[p]!, v);
      high[p] = Math.max(high[p] ?? initial[p]!, v);
    }
  }
  const providers = Object.keys(initial).sort();
  const losing = providers
    .filter((p) => (low[p] ?? initial[p]!) < initial[p]! - EPS)
    .map((p) => ({ provider: p, from: initial[p]!, lowest: low[p]! }))
    .sort((a, b) => b.from - b.lowest - (a.from - a.lowest));
  const gaining = providers
    .filter((p) => (high[p] ?? initial[p]!) > initial[p]! + EPS)
    .map((p) => ({ provider: p, from: initial[p]!, highest: high[p]! }))
    .sort((a, b) => b.highest - b.from - (a.highest - a.from));
  return { losing, gaining };
}

function toIncident(events: TShiftEvent[], now: number, gapMs: number): TIncident {
  const first = events[0]!;
  const last = events[events.length - 1]!;
  return {
    id: first.id,
    operation: first.operation,
    regions: [...new Set(events.map((e) => e.region))].sort(),
    start: first.at,
    end: last.at,
    durationMs: last.at - first.at,
    resolved: last.type === "full_failback_completed" || now - last.at > gapMs,
    ...movers(events),
    trigger: { type: first.type, provider: first.provider, detail: first.detail, evidence: first.evidence.find((x) => x.provider === first.provider) ?? null },
    peakShiftPerMinute: peakPerMinute(events),
    recoverySteps: events.filter((e) => RECOVERY.has(e.type)).length,
    failbackSteps: events.filter((e) => FAILBACK.has(e.type)).length,
    events,
  };
}

/**
 * Incidents from shift events in any order, newest incident first. Events of one operation join
 * the open incident while they follow each other within `gapMs` (across regions: a provider-wide
 * outage is one incident); a completed full failback closes it.
 */
export function groupIncidents(events: readonly TShiftEvent[], now: number, gapMs = INCIDENT_GAP_MS): TIncident[] {
  const sorted = [...events].sort((a, b) => a.at - b.at || a.id.length - b.id.length || a.id.localeCompare(b.id));
  const open = new Map<string, TShiftEvent[]>();
  const done: TShiftEvent[][] = [];
  for (const e of sorted) {
    const current = open.get(e.operation);
    const last = current?.[current.length - 1];
    if (current && last && e.at - last.at <= gapMs && last.type !== "full_failback_completed") {
      current.push(e);
    } else {
      if (current) done.push(current);
      open.set(e.operation, [e]);
    }
  }
  done.push(...open.values());
  return done.map((g) => toIncident(g, now, gapMs)).sort((a, b) => b.start - a.start);
}
