import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { startReceiver, type Receiver } from "../../test/support/notify-receiver";
import { createNotificationDispatcher, type TDispatcherSettings } from "./dispatcher";
import { enqueueNotification } from "./enqueue";
import type { TIncidentNotification } from "./events";
import { listDeliveries } from "./list-deliveries";
import { verifyWebhookSignature } from "./signature";

let db: TTestDatabase;
let prisma: PrismaClient;
let receiver: Receiver;

const SECRET = "whsec_test_0123456789abcdef";

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  receiver = await startReceiver();
  process.env.SWITCHYARD_SECRET_NOTIFY_HOOK = SECRET;
  process.env.SWITCHYARD_SECRET_NOTIFY_PD = "R0UTINGKEY0123456789";
  process.env.SWITCHYARD_SECRET_NOTIFY_SLACK = receiver.url("/slack/T000/B000/XXXX");
});

afterAll(async () => {
  await receiver.close();
  await prisma.$disconnect();
  await db.drop();
});

beforeEach(async () => {
  receiver.received.length = 0;
  receiver.setStatus(200);
  await prisma.notificationAttempt.deleteMany();
  await prisma.notificationDelivery.deleteMany();
  await prisma.notificationEvent.deleteMany();
  await prisma.notificationChannel.deleteMany();
});

async function channel(kind: "webhook" | "slack" | "pagerduty", routes: object = {}) {
  const data = {
    webhook: { url: receiver.url("/hook"), secretRef: "env:SWITCHYARD_SECRET_NOTIFY_HOOK" },
    slack: { url: null, secretRef: "env:SWITCHYARD_SECRET_NOTIFY_SLACK" },
    pagerduty: { url: receiver.url("/v2/enqueue"), secretRef: "env:SWITCHYARD_SECRET_NOTIFY_PD" },
  }[kind];
  return prisma.notificationChannel.create({ data: { name: `${kind}-${Math.random().toString(36).slice(2, 8)}`, kind, routes, ...data } });
}

const incident = (kind: TIncidentNotification["kind"], over: Partial<TIncidentNotification> = {}): TIncidentNotification => ({
  kind,
  incidentId: "inc-1",
  operation: "SEND_SMS",
  region: "EU",
  provider: "provider_A",
  severity: "critical",
  title: "provider_A breaker open on SEND_SMS · EU",
  cause: "breaker open: 5 consecutive failures, last: timeout",
  startedAt: "2026-12-04T18:53:23.000Z",
  url: "/incidents/inc-1",
  ...over,
});

/** A simulated clock: the dispatcher's and the outbox's notion of now, moved by the test. */
function clock(start = Date.parse("2026-12-04T19:00:00Z")) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms), date: () => new Date(t) };
}

function dispatcher(c: ReturnType<typeof clock>, settings: Partial<TDispatcherSettings> = {}, client = prisma, instanceId = "test-1") {
  return createNotificationDispatcher({
    prisma: client,
    instanceId,
    log: () => {},
    now: c.now,
    random: () => 1,
    settings: { updateDelayMs: 30_000, ...settings },
  });
}

async function emit(e: TIncidentNotification, at: Date) {
  return prisma.$transaction((tx) => enqueueNotification(tx, e, at));
}

describe("notification dispatcher", () => {
  it("signs webhooks so the receiver can verify them, and a changed body fails verification", async () => {
    await channel("webhook");
    const c = clock();
    await emit(incident("incident.opened"), c.date());
    const d = dispatcher(c);
    expect(await d.runOnce()).toBe(1);
    await d.stop();
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    const headers = { signature: got!.headers["x-switchyard-signature"] as string, timestamp: got!.headers["x-switchyard-timestamp"] as string };
    const nowSeconds = Math.floor(c.now() / 1000);
    expect(verifyWebhookSignature(SECRET, headers, got!.body, nowSeconds)).toEqual({ ok: true });
    expect(verifyWebhookSignature(SECRET, headers, got!.body.replace("provider_A", "provider_B"), nowSeconds).ok).toBe(false);
    expect(verifyWebhookSignature("another secret", headers, got!.body, nowSeconds).ok).toBe(false);
    expect(verifyWebhookSignature(SECRET, headers, got!.body, nowSeconds + 3600)).toEqual({ ok: false, reason: "timestamp outside the tolerance (a replay?)" });
    expect(got!.json).toMatchObject({ kind: "incident.opened", group: "incident:inc-1", severity: "critical", operation: "SEND_SMS", region: "EU" });
    expect(got!.headers["x-switchyard-delivery"]).toBe(got!.json.deliveryId);
  });

  it("PagerDuty: trigger, one coalesced update, then resolve under one dedup key; Slack: one title per incident", async () => {
    await channel("pagerduty");
    await channel("slack");
    const c = clock();
    const d = dispatcher(c);
    await emit(incident("incident.opened"), c.date());
    await d.runOnce();
    // Three updates inside the grouping window: one message, carrying the last.
    for (const step of [1, 2, 3]) {
      c.advance(2000);
      await emit(incident("incident.updated", { cause: `shifted in ${step} steps` }), c.date());
    }
    await d.runOnce();
    expect(receiver.received).toHaveLength(2);
    c.advance(30_000);
    await d.runOnce();
    c.advance(60_000);
    await emit(incident("incident.resolved", { endedAt: c.date() }), c.date());
    await d.runOnce();
    await d.stop();

    const pd = receiver.received.filter((r) => r.path === "/v2/enqueue").map((r) => r.json);
    expect(pd.map((p) => p.event_action)).toEqual(["trigger", "trigger", "resolve"]);
    expect(new Set(pd.map((p) => p.dedup_key))).toEqual(new Set(["switchyard:incident:inc-1"]));
    expect(pd[0]).toMatchObject({
      routing_key: "R0UTINGKEY0123456789",
      payload: { severity: "critical", source: "provider_A", component: "SEND_SMS", group: "EU", class: "incident.opened" },
    });
    expect((pd[1]!.payload as { custom_details: Record<string, string> }).custom_details.Cause).toBe("shifted in 3 steps");

    const slack = receiver.received.filter((r) => r.path.startsWith("/slack/")).map((r) => r.json);
    expect(slack).toHaveLength(3);
    for (const m of slack) {
      expect(m.text).toContain("provider_A breaker open on SEND_SMS · EU");
      expect(Array.isArray(m.blocks)).toBe(true);
    }
    expect(slack.map((m) => String(m.text).split(":")[2]?.trim())).toEqual(["Incident opened", "Incident updated", "Incident resolved"]);
  });

  it("a receiver down for 60 s still gets the message, exactly once, and every attempt is recorded", async () => {
    await channel("webhook");
    const c = clock();
    const d = dispatcher(c, { backoffBaseMs: 1000, backoffCapMs: 30_000 });
    await receiver.down();
    await emit(incident("incident.opened"), c.date());
    for (let s = 0; s < 60; s++) {
      await d.runOnce();
      c.advance(1000);
    }
    const during = await listDeliveries(prisma, { incidentId: "inc-1" });
    expect(during[0]).toMatchObject({ status: "pending" });
    expect(during[0]!.attempts.length).toBeGreaterThanOrEqual(4);
    expect(during[0]!.attempts.every((a) => a.statusCode === null && /ECONNREFUSED/.test(a.error ?? ""))).toBe(true);

    await receiver.up();
    for (let s = 0; s < 60; s++) {
      await d.runOnce();
      c.advance(1000);
    }
    await d.stop();
    expect(receiver.received).toHaveLength(1);
    const [after] = await listDeliveries(prisma, { incidentId: "inc-1" });
    expect(after).toMatchObject({ status: "delivered", lastError: null });
    expect(after!.attempts.at(-1)).toMatchObject({ statusCode: 200, error: null });
    expect(after!.attempts.map((a) => a.attempt)).toEqual(after!.attempts.map((_, i) => i + 1));
  });

  it("gives up: at once on a 4xx that will not change, after the bounded time on 503s", async () => {
    const hook = await channel("webhook");
    const c = clock();
    const d = dispatcher(c, { backoffBaseMs: 1000, backoffCapMs: 10_000, giveUpAfterMs: 60_000 });
    receiver.setStatus(410);
    await emit(incident("incident.opened"), c.date());
    await d.runOnce();
    expect((await listDeliveries(prisma, { channelId: hook.id }))[0]).toMatchObject({ status: "failed", lastError: "HTTP 410: unavailable" });

    receiver.setStatus(503);
    await emit(incident("incident.opened", { incidentId: "inc-2" }), c.date());
    for (let s = 0; s < 90; s++) {
      await d.runOnce();
      c.advance(1000);
    }
    await d.stop();
    const [gaveUp] = await listDeliveries(prisma, { incidentId: "inc-2" });
    expect(gaveUp).toMatchObject({ status: "failed", lastError: "HTTP 503: unavailable" });
    expect(gaveUp!.attempts.length).toBeLessThan(20);
    expect(new Date(gaveUp!.finishedAt!).getTime() - new Date(gaveUp!.createdAt).getTime()).toBeLessThanOrEqual(60_000);
  });

  it("forgets finished deliveries, their attempts and events after the retention time, never a pending one", async () => {
    await channel("webhook");
    const c = clock();
    await emit(incident("incident.opened"), c.date());
    await dispatcher(c).runOnce();
    receiver.setStatus(503);
    await emit(incident("incident.opened", { incidentId: "inc-pending" }), c.date());
    c.advance(31 * 86_400_000);
    // A new dispatcher sweeps on its first round; the 503 keeps the second delivery pending.
    await dispatcher(c, { giveUpAfterMs: 40 * 86_400_000 }).runOnce();
    const left = await prisma.notificationDelivery.findMany({ select: { status: true, groupKey: true } });
    expect(left).toEqual([{ status: "pending", groupKey: "incident:inc-pending" }]);
    expect(await prisma.notificationEvent.count()).toBe(1);
  });

  it("three dispatchers on one database deliver each notification once, not three times", async () => {
    await channel("webhook");
    const clients = [createPrisma(db.url), createPrisma(db.url), createPrisma(db.url)];
    const dispatchers = clients.map((client, i) =>
      createNotificationDispatcher({ prisma: client, instanceId: `instance-${i}`, log: () => {}, settings: { pollMs: 10, batch: 3, updateDelayMs: 0 } }),
    );
    for (const d of dispatchers) d.start();
    const incidents = Array.from({ length: 12 }, (_, i) => `inc-${i}`);
    for (const id of incidents) {
      await emit(incident("incident.opened", { incidentId: id }), new Date());
      await emit(incident("incident.resolved", { incidentId: id }), new Date());
    }
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && (await prisma.notificationDelivery.count({ where: { status: "pending" } })) > 0)
      await new Promise((r) => setTimeout(r, 50));
    await Promise.all(dispatchers.map((d) => d.stop()));
    await Promise.all(clients.map((c) => c.$disconnect()));

    const ids = receiver.received.map((r) => r.json.deliveryId);
    expect(ids).toHaveLength(24);
    expect(new Set(ids).size).toBe(24);
    // Each incident's resolve arrived after its opening, whichever instance sent which.
    for (const id of incidents) {
      const kinds = receiver.received.filter((r) => (r.json.data as { incidentId: string }).incidentId === id).map((r) => r.json.kind);
      expect(kinds).toEqual(["incident.opened", "incident.resolved"]);
    }
    const senders = await prisma.notificationAttempt.groupBy({ by: ["instanceId"], _count: true });
    expect(senders.reduce((n, s) => n + s._count, 0)).toBe(24);
  });
});
