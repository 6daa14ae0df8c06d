import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { makeUser } from "../../test/support/controlplane-fixtures";
import { applyBundle } from "../catalog/apply-bundle";
import { parseBundle } from "../catalog/bundle";
import { webhookRequest, type TStoredEvent } from "./messages";

/** The README's "Get paged" snippets, run as written: the bundle applies, the receiver's check accepts a real message and refuses a forged one. */
const README = readFileSync(path.join(__dirname, "../../README.md"), "utf8");
const section = README.slice(README.indexOf("## Get paged"), README.indexOf("\n## ", README.indexOf("## Get paged") + 3));
const block = (lang: string) => {
  const m = new RegExp("```" + lang + "\\n([\\s\\S]*?)```").exec(section);
  if (!m) throw new Error(`no ${lang} block in the README's Get paged section`);
  return m[1]!;
};

type TVerify = (secret: string, headers: Record<string, string>, rawBody: string, nowSeconds?: number) => boolean;

let db: TTestDatabase;
let prisma: PrismaClient;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
});

afterAll(async () => {
  await prisma.$disconnect();
  await db.drop();
});

describe("README: Get paged", () => {
  it("the bundle snippet applies as three channels", async () => {
    const admin = await makeUser(prisma, ["admin"]);
    const result = await applyBundle(prisma, admin.actor, parseBundle(block("yaml")), { dryRun: false });
    expect(result.changes.map((c) => `${c.action} ${c.target}`)).toEqual([
      "create notification channel oncall-pagerduty",
      "create notification channel oncall-slack",
      "create notification channel change-feed",
    ]);
    expect(await prisma.notificationChannel.findUniqueOrThrow({ where: { name: "oncall-pagerduty" } })).toMatchObject({
      url: "https://events.pagerduty.com/v2/enqueue",
    });
  });

  it("the receiver snippet verifies a signed webhook and refuses a changed body, another secret and an old timestamp", () => {
    const verify = new Function("require", `${block("js")}\nreturn verifySwitchyard;`)(createRequire(__filename)) as TVerify;
    const event: TStoredEvent = {
      id: "e1",
      kind: "kill_switch.set",
      groupKey: "override:o1",
      severity: "warning",
      title: "Kill switch set: SEND_SMS · EU",
      operation: "SEND_SMS",
      region: "EU",
      provider: null,
      payload: { reason: "provider_A flapping" },
      createdAt: new Date(),
    };
    const now = Date.now();
    const out = webhookRequest("https://hooks.example.com/switchyard", "s3cret", "d1", event, now, null);
    expect(verify("s3cret", out.headers, out.body)).toBe(true);
    expect(verify("s3cret", out.headers, out.body.replace("EU", "NA"))).toBe(false);
    expect(verify("another", out.headers, out.body)).toBe(false);
    expect(verify("s3cret", out.headers, out.body, now / 1000 + 600)).toBe(false);
  });
});
