import type { Prisma, PrismaClient } from "../db";
import { type TActor, appendAudit } from "../audit";
import { notFound } from "../errors";
import { listDeliveries, type TDeliveryView } from "./list-deliveries";

/**
 * Queues a test message to one channel (whatever its routes) through the same outbox as real
 * events, so the test exercises the secret, the URL rules, the signature and the receiver. The
 * dispatcher sends it within a poll; the caller may wait for the outcome with awaitDelivery.
 */
export async function sendTestNotification(prisma: PrismaClient, actor: TActor, channelId: string, now = new Date()): Promise<string> {
  return prisma.$transaction(async (tx) => {
    const channel = await tx.notificationChannel.findUnique({ where: { id: channelId } });
    if (!channel) throw notFound("notification channel", channelId);
    const payload = { actor: actor.label, reason: `test from the console by ${actor.label}`, url: "/notifications" };
    const event = await tx.notificationEvent.create({
      data: {
        kind: "test",
        groupKey: `test:${channel.id}:${now.getTime()}`,
        severity: "info",
        title: `Test notification for ${channel.name}`,
        payload: payload as Prisma.InputJsonValue,
        createdAt: now,
      },
    });
    const delivery = await tx.notificationDelivery.create({
      data: { eventId: event.id, channelId: channel.id, groupKey: event.groupKey, kind: "test", nextAttemptAt: now, createdAt: now },
    });
    await appendAudit(
      tx,
      actor,
      { action: "notification_channel.test", targetType: "notification_channel", targetId: channel.id, after: { deliveryId: delivery.id } },
      now,
    );
    return delivery.id;
  });
}

/** Waits (bounded) until a delivery is no longer pending, or its first attempt failed; returns its latest view. */
export async function awaitDelivery(prisma: PrismaClient, channelId: string, deliveryId: string, waitMs = 8000): Promise<TDeliveryView | null> {
  const deadline = Date.now() + Math.min(waitMs, 15_000);
  for (;;) {
    const view = (await listDeliveries(prisma, { channelId, limit: 20 })).find((d) => d.id === deliveryId) ?? null;
    if (!view || view.status !== "pending" || view.attempts.length > 0 || Date.now() >= deadline) return view;
    await new Promise((r) => setTimeout(r, 200));
  }
}
