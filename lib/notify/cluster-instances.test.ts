import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { startServerInstance, type TServerInstance } from "../../test/support/server-instances";
import { startReceiver, type Receiver } from "../../test/support/notify-receiver";
import { enqueueNotification } from "./enqueue";

/**
 * Three real server processes on one database, each starting its dispatcher at boot as
 * production does: every notification reaches the receiver once, not once per instance.
 */
let db: TTestDatabase;
let prisma: PrismaClient;
let receiver: Receiver;
let spoolRoot: string;
const cluster: TServerInstance[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  receiver = await startReceiver();
  spoolRoot = await mkdtemp(path.join(tmpdir(), "sy-notify-cluster-"));
  process.env.SWITCHYARD_SECRET_CLUSTER_HOOK = "whsec_cluster";
  await prisma.notificationChannel.create({
    data: { name: "cluster-hook", kind: "webhook", url: receiver.url("/hook"), secretRef: "env:SWITCHYARD_SECRET_CLUSTER_HOOK" },
  });
  const names = ["notify-a", "notify-b", "notify-c"];
  cluster.push(
    ...(await Promise.all(
      names.map((name) => startServerInstance({ name, databaseUrl: db.url, apiKey: "notify-cluster-key", spoolRoot, env: { NOTIFY_POLL_MS: "100" } })),
    )),
  );
}, 180_000);

afterAll(async () => {
  for (const i of cluster) if (i.child.exitCode === null) i.child.kill("SIGKILL");
  await receiver?.close();
  await prisma?.$disconnect();
  await db?.drop();
  await rm(spoolRoot, { recursive: true, force: true });
});

describe("notifications across three instances", () => {
  it("deliver each event once per cluster", async () => {
    const incidents = Array.from({ length: 15 }, (_, i) => `cluster-${i}`);
    const base = { operation: "SEND_SMS", region: "EU", provider: "provider_A", severity: "critical" as const, title: "t", cause: "c", startedAt: new Date() };
    for (const id of incidents) {
      await prisma.$transaction(async (tx) => {
        await enqueueNotification(tx, { ...base, kind: "incident.opened", incidentId: id, url: `/incidents/${id}` });
        await enqueueNotification(tx, { ...base, kind: "incident.resolved", incidentId: id, url: `/incidents/${id}` });
      });
    }
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && (await prisma.notificationDelivery.count({ where: { status: "pending" } })) > 0)
      await new Promise((r) => setTimeout(r, 100));
    // Long enough for a second or third instance to send again, were the claims not exclusive.
    await new Promise((r) => setTimeout(r, 1500));

    expect(await prisma.notificationDelivery.count({ where: { status: "delivered" } })).toBe(30);
    const ids = receiver.received.map((r) => r.json.deliveryId);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    const senders = await prisma.notificationAttempt.groupBy({ by: ["instanceId"], _count: true });
    expect(senders.reduce((n, s) => n + s._count, 0)).toBe(30);
    expect(senders.every((s) => ["notify-a", "notify-b", "notify-c"].includes(s.instanceId))).toBe(true);
  }, 120_000);
});
