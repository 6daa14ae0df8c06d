import type { Prisma } from "../db";
import { eventFacts, eventPayload, type TNotificationInput } from "./events";
import { pagerDutyAction } from "./messages";
import { parseRoutes, routeMatches } from "./routes";

export type TEnqueued = { eventId: string; deliveries: number };

/**
 * Writes the event and one outbox row per channel whose routes match, inside the caller's
 * transaction: the notification exists exactly when the fact commits, and a rolled-back
 * change notifies nobody. The dispatcher sends the rows later, once per cluster.
 *
 * Grouping: an incident update that finds an earlier update for the same channel still
 * waiting replaces its event instead of adding a row, so a burst of updates is one message;
 * a resolve drops the updates still waiting (the resolve says more).
 */
export async function enqueueNotification(tx: Prisma.TransactionClient, input: TNotificationInput, now: Date = new Date()): Promise<TEnqueued> {
  const facts = eventFacts(input);
  const event = await tx.notificationEvent.create({
    data: { ...facts, payload: eventPayload(input) as Prisma.InputJsonValue, createdAt: now },
    select: { id: true },
  });
  const channels = await tx.notificationChannel.findMany({ where: { enabled: true }, select: { id: true, kind: true, routes: true } });
  let deliveries = 0;
  for (const channel of channels) {
    if (!routeMatches(parseRoutes(channel.routes), facts)) continue;
    // PagerDuty carries incidents and overrides (trigger, resolve); an activation would only fail there.
    if (channel.kind === "pagerduty" && pagerDutyAction(facts.kind) === null) continue;
    const waiting = { channelId: channel.id, groupKey: facts.groupKey, kind: "incident.updated", status: "pending", attempts: 0, leaseOwner: null };
    if (facts.kind === "incident.updated") {
      const merged = await tx.notificationDelivery.updateMany({ where: waiting, data: { eventId: event.id } });
      if (merged.count > 0) continue;
    }
    if (facts.kind === "incident.resolved") {
      await tx.notificationDelivery.updateMany({ where: waiting, data: { status: "superseded", finishedAt: now } });
    }
    await tx.notificationDelivery.create({
      data: { eventId: event.id, channelId: channel.id, groupKey: facts.groupKey, kind: facts.kind, nextAttemptAt: now, createdAt: now },
    });
    deliveries++;
  }
  return { eventId: event.id, deliveries };
}
