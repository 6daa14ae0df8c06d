import type { Prisma, PrismaClient } from "../db";
import { stepPhaseOf } from "./apply-facts";
import { toRecord, toStep } from "./rows";
import { stepSummary } from "./step-summary";
import type { TIncidentFilter, TIncidentListItem, TStepPhase } from "./types";

/** The most rows a list answers with: open incidents are few; resolved ones are the newest. */
export const INCIDENT_LIST_LIMIT = 200;

/**
 * The fleet's incidents, every operation and region unless filtered: open ones first (newest
 * first), then resolved ones, newest first. Each with its step and fact counts and the sentence of
 * its largest step.
 */
export async function listIncidents(prisma: PrismaClient, filter: TIncidentFilter = {}, limit = INCIDENT_LIST_LIMIT): Promise<TIncidentListItem[]> {
  const where: Prisma.IncidentWhereInput = {
    ...(filter.operation ? { operationKey: filter.operation } : {}),
    ...(filter.region ? { region: filter.region } : {}),
  };
  const state = filter.state ?? "all";
  const take = Math.max(1, Math.min(limit, INCIDENT_LIST_LIMIT));
  const [open, resolved] = await Promise.all([
    state === "resolved" ? [] : prisma.incident.findMany({ where: { ...where, endedAt: null }, orderBy: { startedAt: "desc" }, take }),
    state === "open" ? [] : prisma.incident.findMany({ where: { ...where, endedAt: { not: null } }, orderBy: { startedAt: "desc" }, take }),
  ]);
  const rows = [...open, ...resolved].slice(0, take);
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [steps, facts] = await Promise.all([
    prisma.incidentStep.findMany({ where: { incidentId: { in: ids } } }),
    prisma.incidentFact.groupBy({ by: ["incidentId"], where: { incidentId: { in: ids } }, _count: { _all: true } }),
  ]);
  return rows.map((r) => {
    const mine = steps.filter((s) => s.incidentId === r.id).map(toStep);
    const away = mine.find((s) => s.phase === "away") ?? mine[0] ?? null;
    return {
      ...toRecord(r),
      steps: mine.length,
      facts: facts.find((f) => f.incidentId === r.id)?._count._all ?? 0,
      headline: away ? stepSummary(away) : null,
    };
  });
}

/** How many incidents are open: the nav's badge. */
export function countOpenIncidents(prisma: PrismaClient): Promise<number> {
  return prisma.incident.count({ where: { endedAt: null } });
}

/** Who lost and who gained across an incident's steps: each provider's share before its first step against its lowest or highest after. */
function movers(steps: ReturnType<typeof toStep>[]): { losing: string[]; gaining: string[] } {
  const first: Record<string, number> = {};
  const low: Record<string, number> = {};
  const high: Record<string, number> = {};
  for (const s of steps) {
    for (const [p, v] of Object.entries(s.sharesFrom)) first[p] ??= v;
    for (const [p, v] of Object.entries(s.sharesTo)) {
      first[p] ??= 0;
      low[p] = Math.min(low[p] ?? first[p]!, v);
      high[p] = Math.max(high[p] ?? first[p]!, v);
    }
  }
  const providers = Object.keys(first).sort();
  return {
    losing: providers.filter((p) => (low[p] ?? first[p]!) < first[p]! - 1e-6),
    gaining: providers.filter((p) => (high[p] ?? first[p]!) > first[p]! + 1e-6),
  };
}

/**
 * The incidents of one (operation, region) that overlap [from, to], newest first, with who lost
 * and gained traffic: the overview's bands and the Why page's list. Stored incidents, so the same
 * incident has the same start, cause and steps whatever the range.
 */
export async function listIncidentSpans(prisma: PrismaClient, operation: string, region: string, from: number, to: number, limit = 50) {
  const rows = await prisma.incident.findMany({
    where: { operationKey: operation, region, startedAt: { lte: new Date(to) }, OR: [{ endedAt: null }, { endedAt: { gte: new Date(from) } }] },
    orderBy: { startedAt: "desc" },
    take: Math.max(1, Math.min(limit, INCIDENT_LIST_LIMIT)),
  });
  const steps = rows.length === 0 ? [] : await prisma.incidentStep.findMany({ where: { incidentId: { in: rows.map((r) => r.id) } }, orderBy: { seq: "asc" } });
  return rows.map((r) => {
    const mine = steps.filter((s) => s.incidentId === r.id).map(toStep);
    const away = mine.find((s) => s.phase === "away") ?? mine[0] ?? null;
    const eventRanges = mine.map((s) => ({ phase: s.phase, provider: s.provider, first: BigInt(s.firstEvent), last: BigInt(s.lastEvent) }));
    return { ...toRecord(r), ...movers(mine), steps: mine.length, facts: 0, headline: away ? stepSummary(away) : null, eventRanges };
  });
}

/** The shift events a step took in: its first to last event id, of its phase and provider. */
export type TStepEventRange = { phase: TStepPhase; provider: string | null; first: bigint; last: bigint };

/**
 * Whether the incident whose steps are `ranges` took in the shift event: the tracker put it in one
 * of its steps. Two incidents can overlap in time (a policy activation still settling when a fault
 * opens its own), and each shows only the moves it took in, not every move of its time span.
 */
export function incidentHoldsEvent(ranges: readonly TStepEventRange[], e: { id: string; type: string; provider: string | null }): boolean {
  const id = BigInt(e.id);
  const phase = stepPhaseOf(e.type);
  return ranges.some((r) => r.phase === phase && r.provider === e.provider && id >= r.first && id <= r.last);
}
