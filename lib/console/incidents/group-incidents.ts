/**
 * Groups shift events into incidents. The controller writes an event per tick while it moves
 * traffic, so one outage is dozens of near-identical rows; on-call wants one row per incident
 * with its start, end, who lost and gained traffic, what triggered it and how it recovered.
 * Pure (types only from ./types) so the Why page, the chart and unit tests share it.
 */
import type { TEvidence, TShiftEvent, TShares } from "../types";

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
  /** No provider went wrong: floors restored or shares rebalanced with no cause before them. */
  routine: boolean;
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

export function peakPerMinute(events: TShiftEvent[]): number {
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

export function movers(events: TShiftEvent[]) {
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

function toIncident(events: TShiftEvent[], cause: TShiftEvent | null, now: number, gapMs: number): TIncident {
  const first = events[0]!;
  const trigger = cause ?? first;
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
    routine: cause === null,
    trigger: {
      type: trigger.type,
      provider: trigger.provider,
      detail: trigger.detail,
      evidence: trigger.evidence.find((x) => x.provider === trigger.provider) ?? null,
    },
    peakShiftPerMinute: peakPerMinute(events),
    recoverySteps: events.filter((e) => RECOVERY.has(e.type)).length,
    failbackSteps: events.filter((e) => FAILBACK.has(e.type)).length,
    events,
  };
}

/**
 * Events that start an incident: something went wrong with a provider. The others (floors,
 * rebalancing, recovery, failback) follow a cause, or are routine when nothing precedes them.
 */
const CAUSES = new Set(["circuit_open_shift_to_secondary", "hard_exclusion", "score_decay_shift", "no_eligible_provider"]);

type TGroup = { events: TShiftEvent[]; cause: TShiftEvent | null; providers: Set<string>; regions: Set<string> };

function join(g: TGroup, e: TShiftEvent): void {
  g.events.push(e);
  g.regions.add(e.region);
  if (CAUSES.has(e.type) && e.provider) g.providers.add(e.provider);
  g.cause ??= CAUSES.has(e.type) ? e : null;
}

/**
 * The open group `e` belongs to, most recent first. A cause joins a group with a cause that names
 * its provider (one outage across regions), else one that has its region (a cascade); anything
 * else joins a group that has its region, preferably one with a cause.
 */
function groupFor(groups: readonly TGroup[], e: TShiftEvent): TGroup | undefined {
  const recent = [...groups].reverse();
  const caused = recent.filter((g) => g.cause !== null);
  if (CAUSES.has(e.type)) return caused.find((g) => e.provider !== null && g.providers.has(e.provider)) ?? caused.find((g) => g.regions.has(e.region));
  return caused.find((g) => g.regions.has(e.region)) ?? recent.find((g) => g.regions.has(e.region));
}

/**
 * Incidents from shift events in any order, newest incident first. An event joins an open group of
 * its operation while it follows the group's last event within `gapMs` and belongs to it (see
 * groupFor: a provider-wide outage is one incident, two unrelated providers failing in different
 * regions are two); a completed full failback closes the group. A group's trigger is its first
 * cause, so routine events that happened to precede an outage do not stand in for what tripped it.
 */
export function groupIncidents(events: readonly TShiftEvent[], now: number, gapMs = INCIDENT_GAP_MS): TIncident[] {
  const sorted = [...events].sort((a, b) => a.at - b.at || a.id.length - b.id.length || a.id.localeCompare(b.id));
  const open = new Map<string, TGroup[]>();
  const done: TGroup[] = [];
  for (const e of sorted) {
    const groups = (open.get(e.operation) ?? []).filter((g) => {
      const last = g.events[g.events.length - 1]!;
      const live = e.at - last.at <= gapMs && last.type !== "full_failback_completed";
      if (!live) done.push(g);
      return live;
    });
    const target = groupFor(groups, e);
    if (target) join(target, e);
    else {
      const g: TGroup = { events: [], cause: null, providers: new Set(), regions: new Set() };
      join(g, e);
      groups.push(g);
    }
    open.set(e.operation, groups);
  }
  for (const groups of open.values()) done.push(...groups);
  return done.map((g) => toIncident(g.events, g.cause, now, gapMs)).sort((a, b) => b.start - a.start);
}
