import type { PrismaClient } from "../db";

export type TDeliveryAttempt = { attempt: number; at: string; durationMs: number; statusCode: number | null; error: string | null; instanceId: string };

export type TDeliveryView = {
  id: string;
  eventKind: string;
  title: string;
  channel: { id: string; name: string; kind: string } | null;
  /** pending | delivered | failed | superseded */
  status: string;
  createdAt: string;
  finishedAt: string | null;
  nextAttemptAt: string | null;
  lastError: string | null;
  attempts: TDeliveryAttempt[];
};

const MAX_ROWS = 200;
const MAX_ATTEMPTS_SHOWN = 30;

/**
 * The deliveries of one incident's notifications (or one channel's latest), newest first, each
 * with its attempts (status code, error, duration), for the incident page and the channel list.
 */
export async function listDeliveries(prisma: PrismaClient, filter: { incidentId?: string; channelId?: string; limit?: number }): Promise<TDeliveryView[]> {
  const take = Math.min(Math.max(1, filter.limit ?? 50), MAX_ROWS);
  const eventIds = filter.incidentId
    ? (await prisma.notificationEvent.findMany({ where: { incidentId: filter.incidentId }, select: { id: true }, take: MAX_ROWS })).map((e) => e.id)
    : null;
  if (eventIds && eventIds.length === 0) return [];
  const rows = await prisma.notificationDelivery.findMany({
    where: { ...(eventIds ? { eventId: { in: eventIds } } : {}), ...(filter.channelId ? { channelId: filter.channelId } : {}) },
    orderBy: { createdAt: "desc" },
    take,
  });
  const [events, channels, attempts] = await Promise.all([
    prisma.notificationEvent.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.eventId))] } }, select: { id: true, kind: true, title: true } }),
    prisma.notificationChannel.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.channelId))] } }, select: { id: true, name: true, kind: true } }),
    prisma.notificationAttempt.findMany({ where: { deliveryId: { in: rows.map((r) => r.id) } }, orderBy: [{ deliveryId: "asc" }, { attempt: "asc" }] }),
  ]);
  const eventOf = new Map(events.map((e) => [e.id, e]));
  const channelOf = new Map(channels.map((c) => [c.id, c]));
  const attemptsOf = new Map<string, TDeliveryAttempt[]>();
  for (const a of attempts) {
    const list = attemptsOf.get(a.deliveryId) ?? [];
    list.push({
      attempt: a.attempt,
      at: a.startedAt.toISOString(),
      durationMs: a.durationMs,
      statusCode: a.statusCode,
      error: a.error,
      instanceId: a.instanceId,
    });
    attemptsOf.set(a.deliveryId, list);
  }
  return rows.map((r) => ({
    id: r.id,
    eventKind: eventOf.get(r.eventId)?.kind ?? r.kind,
    title: eventOf.get(r.eventId)?.title ?? "",
    channel: channelOf.get(r.channelId) ?? null,
    status: r.status,
    createdAt: r.createdAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString() ?? null,
    nextAttemptAt: r.status === "pending" ? r.nextAttemptAt.toISOString() : null,
    lastError: r.lastError,
    attempts: (attemptsOf.get(r.id) ?? []).slice(-MAX_ATTEMPTS_SHOWN),
  }));
}
