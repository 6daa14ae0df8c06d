import type { PrismaClient } from "../db";
import { toRecord, toStep } from "./rows";
import { stepSummary } from "./step-summary";
import type { TDeliveryView, TIncidentDetail, TIncidentFactRow, TShares } from "./types";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Facts shown at most: a flapping breaker's transitions are many; the newest count. */
const MAX_FACTS = 500;

async function deliveriesOf(prisma: PrismaClient, id: string): Promise<TDeliveryView[]> {
  const deliveries = await prisma.notificationDelivery.findMany({ where: { groupKey: `incident:${id}` }, orderBy: { createdAt: "asc" }, take: 100 });
  if (deliveries.length === 0) return [];
  const [channels, attempts] = await Promise.all([
    prisma.notificationChannel.findMany({ where: { id: { in: [...new Set(deliveries.map((d) => d.channelId))] } }, select: { id: true, name: true } }),
    prisma.notificationAttempt.findMany({ where: { deliveryId: { in: deliveries.map((d) => d.id) } }, orderBy: [{ deliveryId: "asc" }, { attempt: "asc" }] }),
  ]);
  return deliveries.map((d) => ({
    id: d.id,
    channel: channels.find((c) => c.id === d.channelId)?.name ?? d.channelId,
    kind: d.kind,
    status: d.status,
    attempts: attempts
      .filter((a) => a.deliveryId === d.id)
      .map((a) => ({ at: a.startedAt.getTime(), statusCode: a.statusCode, error: a.error, durationMs: a.durationMs })),
  }));
}

/** One incident with its steps, facts, the scope's shares and breakers now, and its notifications; null when unknown. */
export async function getIncident(prisma: PrismaClient, id: string): Promise<TIncidentDetail | null> {
  if (!UUID.test(id)) return null;
  const row = await prisma.incident.findUnique({ where: { id } });
  if (!row) return null;
  const [steps, facts, shares, breakers, deliveries] = await Promise.all([
    prisma.incidentStep.findMany({ where: { incidentId: id }, orderBy: { seq: "asc" } }),
    prisma.incidentFact.findMany({ where: { incidentId: id }, orderBy: [{ at: "desc" }, { id: "desc" }], take: MAX_FACTS }),
    prisma.trafficShare.findMany({ where: { operationKey: row.operationKey, region: row.region } }),
    prisma.breakerState.findMany({ where: { region: row.region } }),
    deliveriesOf(prisma, id),
  ]);
  const sharesNow: TShares = Object.fromEntries(shares.map((s) => [s.providerKey, s.share]));
  const providers = new Set([...Object.keys(sharesNow), ...(row.providerKey ? [row.providerKey] : [])]);
  return {
    incident: toRecord(row),
    steps: steps.map(toStep).map((s) => ({ ...s, summary: stepSummary(s) })),
    facts: facts.reverse().map((f): TIncidentFactRow => ({
      at: f.at.getTime(),
      kind: f.kind as TIncidentFactRow["kind"],
      provider: f.providerKey,
      summary: f.summary,
      data: f.data,
      source: f.source,
    })),
    sharesNow,
    breakers: breakers
      .filter((b) => providers.has(b.providerKey))
      .map((b) => ({ provider: b.providerKey, state: String((b.state as { state?: string } | null)?.state ?? "unknown"), since: b.sinceMs })),
    deliveries,
  };
}
