import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../../db/client";
import { createTestDatabase, type TTestDatabase } from "../../../test/support/database";
import { seedCatalog } from "../../../test/support/controlplane-fixtures";
import { seedLlmChat } from "../../demo/seed-demo";
import { createBudgetGuard } from "../../gateway/budget";
import { createRetryBudget, type RetryBudget } from "../../gateway/retry-budget";
import { publishGatewayRuntime, unpublishGatewayRuntime, type TGatewayRuntimeSource } from "./gateway-runtime";
import { getGatewayView } from "./get-gateway-view";

let db: TTestDatabase;
let prisma: PrismaClient;

const NOW = Date.parse("2026-11-30T10:00:30Z");
// Values that must never reach the console, wherever an operator put them.
const SECRETS = {
  env: "sk-env-value-9f8e7d6c5b4a",
  header: "sk-literal-in-header-1a2b3c",
  userinfo: "pw-in-url-4d5e6f",
  query: "key-in-query-7a8b9c",
  asRef: "sk-pasted-as-reference-0z9y8x",
};

beforeAll(async () => {
  db = await createTestDatabase();
  process.env.DATABASE_URL = db.url;
  prisma = createPrisma(db.url);
  await seedCatalog(prisma);
  await seedLlmChat(prisma);
  await prisma.gatewayOperation.update({
    where: { operationKey: "LLM_CHAT" },
    data: { costCapPerMinute: 0.5, costCapPerDay: 20, maxFallbackSeconds: 120, cacheTtlSeconds: 30, retryBudgetRatio: 0.25 },
  });
  // SEND_SMS over an http_json adapter written carelessly: a literal key in a header template, user info and a key in the URL.
  await prisma.providerAdapter.create({
    data: {
      providerKey: "provider_A",
      kind: "http_json",
      baseUrl: `https://ops:${SECRETS.userinfo}@sms.example.test:8443/v2?api_key=${SECRETS.query}`,
      credentialRef: "env:SWITCHYARD_SECRET_SMS_A_TOKEN",
      timeoutMs: 5_000,
      options: { method: "POST", path: "/send", headers: { authorization: `Bearer ${SECRETS.header}` }, body: { to: "{{input.to}}" } },
    },
  });
  // A secret pasted where the reference belongs: the gateway skips the row; the console must not echo it.
  await prisma.providerAdapter.create({
    data: { providerKey: "provider_B", kind: "http_json", baseUrl: "https://b.example.test", credentialRef: SECRETS.asRef, timeoutMs: 5_000 },
  });
  // Shared spend of two instances in the current minute and day, and an older minute that no longer counts.
  const minute = new Date(NOW - (NOW % 60_000));
  const day = new Date(NOW - (NOW % 86_400_000));
  await prisma.$executeRaw`insert into gateway_spend (operation_key, window_kind, window_start, instance_id, amount) values
    ('LLM_CHAT', 'minute', ${minute}, 'i1', 0.25), ('LLM_CHAT', 'minute', ${minute}, 'i2', 0.125), ('LLM_CHAT', 'minute', ${new Date(minute.getTime() - 60_000)}, 'i1', 5),
    ('LLM_CHAT', 'day', ${day}, 'i1', 3), ('LLM_CHAT', 'day', ${day}, 'i2', 2)`;
  await prisma.shiftEvent.createMany({
    data: [
      {
        at: new Date(NOW - 60_000),
        operationKey: "LLM_CHAT",
        region: "EU",
        type: "budget_breach",
        sharesFrom: {},
        sharesTo: {},
        detail: "spend this minute 0.5 reached the cap of 0.5",
        evidence: { kind: "cost_cap_minute", spentMinute: 0.5, capPerMinute: 0.5 },
        policyVersion: "v1",
      },
      {
        at: new Date(NOW - 30_000),
        operationKey: "LLM_CHAT",
        region: "EU",
        type: "max_fallback_duration",
        providerKey: "llm_openai",
        sharesFrom: {},
        sharesTo: {},
        detail: "served by fallback providers for 130 s",
        evidence: { fallbackSeconds: 130 },
        policyVersion: "v1",
      },
      {
        at: new Date(NOW - 10_000),
        operationKey: "SEND_SMS",
        region: "EU",
        type: "share_shift",
        sharesFrom: {},
        sharesTo: {},
        detail: "controller moved traffic",
        evidence: {},
      },
    ],
  });
});

afterAll(async () => {
  unpublishGatewayRuntime();
  await prisma.$disconnect();
  await db.drop();
});

const env = { OPENAI_API_KEY: SECRETS.env, SWITCHYARD_SECRET_SMS_A_TOKEN: SECRETS.env };

describe("getGatewayView", () => {
  it("lists each operation's execute limits, fallback policy and callable providers, and each adapter without secrets", async () => {
    unpublishGatewayRuntime();
    const view = await getGatewayView(NOW, env);
    expect(view.instance).toBeNull();

    const llm = view.operations.find((o) => o.operation === "LLM_CHAT")!;
    expect(llm).toMatchObject({ configured: true, policyVersion: "v1", runtime: null, spend: { minute: 0.375, day: 5 } });
    expect(llm.limits).toMatchObject({
      deadlineMs: 60_000,
      maxAttempts: 3,
      retryBudgetRatio: 0.25,
      costCapPerMinute: 0.5,
      costCapPerDay: 20,
      maxFallbackSeconds: 120,
      cacheTtlSeconds: 30,
    });
    expect(llm.callable).toEqual(["llm_openai", "llm_anthropic", "llm_gemini"]);
    expect(llm.fallbackPolicy).not.toBeNull();
    expect(llm.fallbackAction).toMatch(/^(queue|degraded_message|probe_only|escalate)$/);

    const sms = view.operations.find((o) => o.operation === "SEND_SMS")!;
    expect(sms.configured).toBe(false);
    expect(sms.limits).toMatchObject({ deadlineMs: 30_000, maxAttempts: 3, retryBudgetRatio: 0.2, costCapPerMinute: null });
    expect(sms.callable).toEqual(["provider_A"]);

    const openai = view.adapters.find((a) => a.provider === "llm_openai")!;
    expect(openai).toMatchObject({
      kind: "openai_chat",
      model: "gpt-4o-mini",
      host: "api.openai.com",
      credentialRef: "env:OPENAI_API_KEY",
      credentialAvailable: true,
      contextWindow: 128_000,
      error: null,
      operations: ["LLM_CHAT"],
    });
    expect(view.adapters.find((a) => a.provider === "llm_anthropic")).toMatchObject({ credentialRef: "env:ANTHROPIC_API_KEY", credentialAvailable: false });
    expect(view.adapters.find((a) => a.provider === "provider_A")).toMatchObject({
      kind: "http_json",
      host: "sms.example.test:8443",
      credentialRef: "env:SWITCHYARD_SECRET_SMS_A_TOKEN",
      credentialAvailable: true,
      error: null,
    });
    const b = view.adapters.find((a) => a.provider === "provider_B")!;
    expect(b.credentialRef).toBeNull();
    expect(b.error).toContain("credential_ref: not a reference");

    const text = JSON.stringify(view);
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  });

  it("lists budget events newest first, and nothing else from the shift-event table", async () => {
    const view = await getGatewayView(NOW, env);
    expect(view.events.map((e) => [e.type, e.kind, e.operation])).toEqual([
      ["max_fallback_duration", null, "LLM_CHAT"],
      ["budget_breach", "cost_cap_minute", "LLM_CHAT"],
    ]);
  });

  it("shows this instance's spend, retry budget and queue when the gateway is published", async () => {
    let t = NOW;
    const budget = createBudgetGuard(() => t);
    const budgets = new Map<string, RetryBudget>();
    const source = {
      context: {
        budget,
        retryBudget: (op: string, limits: { retryBudgetRatio: number; retryBudgetMinPerSecond: number }) => {
          if (!budgets.has(op))
            budgets.set(
              op,
              createRetryBudget({ ratio: limits.retryBudgetRatio, minPerSecond: limits.retryBudgetMinPerSecond }, () => t),
            );
          return budgets.get(op)!;
        },
        jobs: { depth: 2 },
      },
    } as unknown as TGatewayRuntimeSource;
    budget.charge("LLM_CHAT", 0.125);
    budget.served("LLM_CHAT", false);
    const rb = source.context.retryBudget("LLM_CHAT", { retryBudgetRatio: 0.25, retryBudgetMinPerSecond: 3 } as never);
    for (let i = 0; i < 200; i++) rb.request();
    expect(rb.tryRetry()).toBe(true);
    t += 5_000;
    publishGatewayRuntime(source, "instance-test");

    const view = await getGatewayView(t, env);
    expect(view.instance).toEqual({ id: "instance-test", queuedJobs: 2 });
    const llm = view.operations.find((o) => o.operation === "LLM_CHAT")!;
    expect(llm.runtime).toEqual({
      spentMinute: 0.125,
      spentDay: 0.125,
      spentMinuteThisInstance: 0.125,
      spentDayThisInstance: 0.125,
      fallbackSince: NOW,
      retry: { requests: 200, retries: 1, allowed: 50, windowSeconds: 10 },
    });
    // The shared table is ahead of this instance's view (it has not synced): the larger counts.
    expect(llm.spend).toEqual({ minute: 0.375, day: 5 });
    budget.charge("LLM_CHAT", 1);
    expect((await getGatewayView(t, env)).operations.find((o) => o.operation === "LLM_CHAT")!.spend).toEqual({ minute: 1.125, day: 5 });
    // Per operation: SEND_SMS has spent nothing and used no retry.
    expect(view.operations.find((o) => o.operation === "SEND_SMS")!.runtime).toMatchObject({
      spentMinute: 0,
      spentDay: 0,
      fallbackSince: null,
      retry: { requests: 0, retries: 0, allowed: 30 },
    });
    expect(view.operations.find((o) => o.operation === "SEND_SMS")!.spend).toEqual({ minute: 0, day: 0 });
  });
});
