import "server-only";
import { getPrisma } from "@/lib/db/client";
import { groupIncidents, INCIDENT_GAP_MS, type TIncident } from "./group-incidents";
import { listShiftEvents } from "./list-shift-events";

export type TIncidentBreaker = { at: number; provider: string; region: string | null; from: string; to: string; reason: string; detail: string };

/** An incident with the breaker transitions of its providers that led into it and happened during it: what tripped the move. */
export type TIncidentView = TIncident & { breakers: TIncidentBreaker[] };

/** How far before an incident's first event a breaker transition still counts as its trigger. */
const LEAD_MS = 2 * 60_000;

/**
 * Incidents of (operation, region) over the last `days`, newest first, with their breaker
 * evidence. Bounded: at most `maxEvents` shift events and 500 breaker transitions are read.
 */
export async function listIncidents(
  operation: string,
  region: string,
  opts: { now?: number; days?: number; maxEvents?: number } = {},
): Promise<TIncidentView[]> {
  const now = opts.now ?? Date.now();
  const from = now - (opts.days ?? 7) * 86_400_000;
  const events = await listShiftEvents({ operation, region, from, to: now, significantOnly: true, limit: opts.maxEvents ?? 5000 });
  const incidents = groupIncidents(events, now, INCIDENT_GAP_MS);
  if (incidents.length === 0) return [];
  const providers = [...new Set(incidents.flatMap((i) => [...i.losing.map((l) => l.provider), ...(i.trigger.provider ? [i.trigger.provider] : [])]))];
  const earliest = Math.min(...incidents.map((i) => i.start)) - LEAD_MS;
  const rows = await getPrisma().breakerEvent.findMany({
    where: { providerKey: { in: providers }, at: { gte: new Date(earliest), lte: new Date(now) }, OR: [{ region: null }, { region }] },
    orderBy: [{ at: "asc" }, { id: "asc" }],
    take: 500,
  });
  const breakers = rows.map((r) => ({
    at: r.at.getTime(),
    provider: r.providerKey,
    region: r.region,
    from: r.fromState,
    to: r.toState,
    reason: r.reason,
    detail: r.detail,
  }));
  return incidents.map((i) => {
    const involved = new Set([...i.losing.map((l) => l.provider), ...(i.trigger.provider ? [i.trigger.provider] : [])]);
    return { ...i, breakers: breakers.filter((b) => involved.has(b.provider) && b.at >= i.start - LEAD_MS && b.at <= i.end) };
  });
}
