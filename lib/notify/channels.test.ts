import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { makeUser, refusal, seedCatalog } from "../../test/support/controlplane-fixtures";
import { createOverride } from "../controlplane/overrides/create-override";
import { endOverride } from "../controlplane/overrides/end-override";
import { parseInput } from "../errors/api-errors";
import { ZChannelInput, type TChannelInput } from "./channel-input";
import { listChannels, saveChannel } from "./channels";
import { enqueueNotification } from "./enqueue";

let db: TTestDatabase;
let prisma: PrismaClient;
let admin: Awaited<ReturnType<typeof makeUser>>;
let onCall: Awaited<ReturnType<typeof makeUser>>;

const SLACK_URL = "https://hooks.slack.com/services/T0/B0/very-secret-token";

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  admin = await makeUser(prisma, ["admin"]);
  onCall = await makeUser(prisma, ["on_call"]);
  process.env.SWITCHYARD_SECRET_CH_SLACK = SLACK_URL;
  process.env.SWITCHYARD_SECRET_CH_HOOK = "whsec_channels_test";
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

beforeEach(async () => {
  await prisma.notificationDelivery.deleteMany();
  await prisma.notificationEvent.deleteMany();
  await prisma.notificationChannel.deleteMany();
});

const input = (over: Partial<Record<keyof TChannelInput, unknown>>): TChannelInput =>
  parseInput(ZChannelInput, { name: "hook", kind: "webhook", url: "http://127.0.0.1:9/hook", secretRef: "env:SWITCHYARD_SECRET_CH_HOOK", ...over });

describe("notification channels", () => {
  it("refuses secrets outside the namespace, private and plain-http URLs, a Slack URL in the open, naming each field", async () => {
    const cases: Array<[Partial<Record<keyof TChannelInput, unknown>>, string, RegExp]> = [
      [{ secretRef: "env:DATABASE_URL" }, "secretRef", /server's own configuration/],
      [{ url: "http://hooks.example.com/x" }, "url", /must be https/],
      [{ url: "https://10.0.0.5/hook" }, "url", /private \(RFC 1918\)/],
      [{ url: "https://169.254.169.254/latest" }, "url", /cloud metadata/],
      [{ kind: "slack", url: SLACK_URL, secretRef: "env:SWITCHYARD_SECRET_CH_SLACK" }, "url", /the URL is the secret/],
      [
        { kind: "pagerduty", url: null, secretRef: "env:SWITCHYARD_SECRET_CH_HOOK", routes: { kinds: ["policy.activated"] } },
        "routes.kinds",
        /PagerDuty takes/,
      ],
      [{ kind: "pagerduty", url: "https://pd.example.com/v2/enqueue", secretRef: "env:SWITCHYARD_SECRET_CH_HOOK" }, "url", /bound to no host/],
    ];
    for (const [over, path, message] of cases) {
      const err = await refusal(saveChannel(prisma, admin.actor, input(over)));
      expect(err.status, JSON.stringify(over)).toBe(422);
      expect(err.fields.find((f) => f.path === path)?.message, JSON.stringify(over)).toMatch(message);
    }
    expect(await prisma.notificationChannel.count()).toBe(0);
  });

  it("stores and shows the reference and whether it resolves, never the secret", async () => {
    await saveChannel(prisma, admin.actor, input({ name: "oncall-slack", kind: "slack", url: null, secretRef: "env:SWITCHYARD_SECRET_CH_SLACK" }));
    await saveChannel(prisma, admin.actor, input({ name: "pd", kind: "pagerduty", url: null, secretRef: "env:SWITCHYARD_SECRET_CH_MISSING" }));
    const shown = JSON.stringify(await listChannels(prisma));
    expect(shown).not.toContain("very-secret-token");
    const [slack, pd] = await listChannels(prisma);
    expect(slack).toMatchObject({ name: "oncall-slack", url: null, secretRef: "env:SWITCHYARD_SECRET_CH_SLACK", secretState: "resolved" });
    expect(pd).toMatchObject({ url: "https://events.pagerduty.com/v2/enqueue", secretState: "missing" });
    const audit = await prisma.auditEntry.findMany({ where: { action: "notification_channel.create" } });
    expect(audit).toHaveLength(2);
    expect(JSON.stringify(audit)).not.toContain("very-secret-token");
  });

  it("routes by kind, operation, region and severity", async () => {
    const sms = await saveChannel(prisma, admin.actor, input({ name: "sms-critical", routes: { operations: ["SEND_SMS"], severities: ["critical"] } }));
    const eu = await saveChannel(
      prisma,
      admin.actor,
      input({ name: "eu-overrides", routes: { regions: ["EU"], kinds: ["kill_switch.set", "kill_switch.ended"] } }),
    );
    const all = await saveChannel(prisma, admin.actor, input({ name: "everything" }));
    const pd = await saveChannel(prisma, admin.actor, input({ name: "pd", kind: "pagerduty", url: null }));
    const base = { incidentId: "i1", region: "EU", provider: "provider_A", title: "t", cause: "c", startedAt: new Date(), url: "/incidents/i1" };
    await prisma.$transaction(async (tx) => {
      await enqueueNotification(tx, { ...base, kind: "incident.opened", operation: "SEND_SMS", severity: "critical" });
      await enqueueNotification(tx, { ...base, kind: "incident.opened", incidentId: "i2", operation: "SEND_EMAIL", severity: "critical" });
      await enqueueNotification(tx, { ...base, kind: "incident.opened", incidentId: "i3", operation: "SEND_SMS", severity: "warning" });
    });
    const kill = await createOverride(prisma, onCall.actor, {
      kind: "routing_kill_switch",
      operationKey: "SEND_SMS",
      region: "EU",
      reason: "provider_A flapping",
    });
    const to = async (id: string) =>
      (await prisma.notificationDelivery.findMany({ where: { channelId: id }, orderBy: { createdAt: "asc" } })).map((d) => `${d.kind}:${d.groupKey}`);
    expect(await to(sms.id)).toEqual(["incident.opened:incident:i1"]);
    expect(await to(eu.id)).toEqual([`kill_switch.set:override:${kill.id}`]);
    expect(await to(all.id)).toHaveLength(4);
    // PagerDuty hears incidents and overrides, never an activation it could only fail to send.
    await prisma.$transaction((tx) =>
      enqueueNotification(tx, { kind: "policy.activated", policyId: "v1", operation: "SEND_SMS", version: 2, actor: "a", url: "/" }),
    );
    expect(await to(all.id)).toHaveLength(5);
    expect(await to(pd.id)).toEqual([
      "incident.opened:incident:i1",
      "incident.opened:incident:i2",
      "incident.opened:incident:i3",
      `kill_switch.set:override:${kill.id}`,
    ]);
  });

  it("kill switches notify when they commit, and a refused one notifies nobody", async () => {
    const ch = await saveChannel(prisma, admin.actor, input({ name: "overrides" }));
    const kill = await createOverride(prisma, onCall.actor, {
      kind: "routing_kill_switch",
      operationKey: "SEND_SMS",
      region: "NA",
      reason: "adaptive off for NA",
    });
    await refusal(createOverride(prisma, onCall.actor, { kind: "routing_kill_switch", operationKey: "SEND_SMS", region: "NA", reason: "again" }));
    await endOverride(prisma, onCall.actor, kill.id, "provider recovered");
    const events = await prisma.notificationEvent.findMany({ orderBy: { createdAt: "asc" } });
    expect(events.map((e) => e.kind)).toEqual(["kill_switch.set", "kill_switch.ended"]);
    expect(events[0]!.payload).toMatchObject({
      overrideId: kill.id,
      operation: "SEND_SMS",
      region: "NA",
      actor: onCall.actor.label,
      reason: "adaptive off for NA",
    });
    expect(events[1]!.payload).toMatchObject({ reason: "provider recovered" });
    expect(await prisma.notificationDelivery.count({ where: { channelId: ch.id } })).toBe(2);
  });
});
