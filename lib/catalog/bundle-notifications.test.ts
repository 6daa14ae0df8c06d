import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { makeUser, refusal } from "../../test/support/controlplane-fixtures";
import { applyBundle } from "./apply-bundle";
import { parseBundle } from "./bundle";
import { exportBundle } from "./export-bundle";

let db: TTestDatabase;
let prisma: PrismaClient;
let admin: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  admin = await makeUser(prisma, ["admin"]);
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

const BUNDLE = `apiVersion: switchyard/v1
notifications:
  - name: oncall-pagerduty
    kind: pagerduty
    secretRef: env:SWITCHYARD_SECRET_PAGERDUTY_KEY
    routes: {kinds: [incident.opened, incident.updated, incident.resolved], severities: [critical]}
  - name: audit-hook
    kind: webhook
    url: http://127.0.0.1:9/hooks/switchyard
    secretRef: file:/run/secrets/switchyard-webhook
`;

describe("configuration bundle: notifications", () => {
  it("plans, applies once, exports what it applied, and refuses a secret outside the namespace by path", async () => {
    const dry = await applyBundle(prisma, admin.actor, parseBundle(BUNDLE), { dryRun: true });
    expect(dry.changes.map((c) => `${c.action} ${c.target}`)).toEqual([
      "create notification channel oncall-pagerduty",
      "create notification channel audit-hook",
    ]);
    expect(await prisma.notificationChannel.count()).toBe(0);

    await applyBundle(prisma, admin.actor, parseBundle(BUNDLE), { dryRun: false });
    expect((await applyBundle(prisma, admin.actor, parseBundle(BUNDLE), { dryRun: true })).changes).toEqual([]);
    const exported = await exportBundle(prisma);
    expect(exported.notifications).toEqual([
      {
        name: "audit-hook",
        kind: "webhook",
        enabled: true,
        url: "http://127.0.0.1:9/hooks/switchyard",
        secretRef: "file:/run/secrets/switchyard-webhook",
        routes: { kinds: [], operations: [], regions: [], severities: [] },
      },
      {
        name: "oncall-pagerduty",
        kind: "pagerduty",
        enabled: true,
        url: "https://events.pagerduty.com/v2/enqueue",
        secretRef: "env:SWITCHYARD_SECRET_PAGERDUTY_KEY",
        routes: { kinds: ["incident.opened", "incident.updated", "incident.resolved"], operations: [], regions: [], severities: ["critical"] },
      },
    ]);

    const bad = BUNDLE.replace("env:SWITCHYARD_SECRET_PAGERDUTY_KEY", "env:DATABASE_URL");
    const err = await refusal(applyBundle(prisma, admin.actor, parseBundle(bad), { dryRun: false }));
    expect(err.status).toBe(422);
    expect(err.fields).toContainEqual(expect.objectContaining({ path: "notifications[oncall-pagerduty].secretRef" }));
    expect((await prisma.notificationChannel.findUniqueOrThrow({ where: { name: "oncall-pagerduty" } })).secretRef).toBe("env:SWITCHYARD_SECRET_PAGERDUTY_KEY");
  });
});
