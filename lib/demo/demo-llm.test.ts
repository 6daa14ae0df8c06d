import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { seedDemo, seedLlmChat } from "./seed-demo";
import { maintainPartitions } from "../dataplane/decision-log/partitions";
import { startGatewayServer, type TGatewayServer } from "../../test/support/gateway-server";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import type { TFault } from "./fault-model";
import { startDemoLlmProviders, type TDemoLlmServer } from "./llm-providers";
import { DEMO_LLM_CREDENTIAL_ENV, pointLlmChatAtDemo } from "./point-llm-chat-at-demo";
import { createSimulator } from "./simulator";

/**
 * The demo's LLM_CHAT path end to end over real HTTP: simulated services → execute mode →
 * the demo LLM providers (all three wire formats) → outcomes recorded; and a chaos-panel outage
 * on one provider in one region makes execute fail over there and nowhere else.
 */
let db: TTestDatabase;
let prisma: PrismaClient;
let pool: pg.Pool;
let server: TGatewayServer;
let llm: TDemoLlmServer;
let spoolDir: string;
let faults: TFault[] = [];
const env: Record<string, string | undefined> = {};

const execute = async (region: string, extra: Record<string, unknown> = {}) => {
  const res = await fetch(`${server.url}/api/v1/execute/LLM_CHAT`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ region, input: { messages: [{ role: "user", content: `[${region}] Hello` }], maxTokens: 16 }, ...extra }),
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      decisionId: string;
      provider: string;
      result: { text?: string };
      attempts: Array<{ provider: string; errorClass: string | null; called: boolean }>;
    },
  };
};

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  await seedDemo(prisma);
  await seedLlmChat(prisma);
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  await maintainPartitions(pool, { now: Date.now(), daysAhead: 1, retentionDays: 0 });
  spoolDir = await mkdtemp(path.join(tmpdir(), "switchyard-demo-llm-"));
  llm = await startDemoLlmProviders({ faults: () => faults, random: () => 0.5 });
  expect(await pointLlmChatAtDemo(prisma, llm.url, env as NodeJS.ProcessEnv)).toBe(3);
  server = await startGatewayServer({ databaseUrl: db.url, prisma, spoolDir, env, gateway: { backoff: { baseMs: 1, capMs: 5 } } });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await llm?.close();
  await pool?.end();
  await prisma?.$disconnect();
  await db?.drop();
  if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
});

describe("demo LLM providers", () => {
  it("points LLM_CHAT's adapters at this machine with a key that exists only in this process", async () => {
    const adapters = await prisma.providerAdapter.findMany({ where: { providerKey: { startsWith: "llm_" } }, orderBy: { providerKey: "asc" } });
    expect(adapters.map((a) => a.baseUrl.startsWith(llm.url))).toEqual([true, true, true]);
    expect(adapters.every((a) => a.credentialRef === `env:${DEMO_LLM_CREDENTIAL_ENV}`)).toBe(true);
    expect(env[DEMO_LLM_CREDENTIAL_ENV]).toMatch(/^demo-[0-9a-f]{24}$/);
  });

  it("answers execute calls in each provider's wire format", async () => {
    const served = new Set<string>();
    for (const only of ["llm_openai", "llm_anthropic", "llm_gemini"]) {
      const r = await execute("EU", { attributes: { providers: only } });
      expect(r.status).toBe(200);
      expect(r.body.provider).toBe(only);
      expect(r.body.result.text).toBe(`Demo answer from ${only} (EU).`);
      served.add(r.body.provider);
    }
    expect(served.size).toBe(3);
  });

  it("streams in each provider's wire format (Gemini's streamGenerateContent too), pieces as they come", async () => {
    for (const only of ["llm_openai", "llm_anthropic", "llm_gemini"]) {
      const res = await fetch(`${server.url}/api/v1/execute/LLM_CHAT`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          region: "EU",
          input: { messages: [{ role: "user", content: "[EU] Hello" }], maxTokens: 16 },
          stream: true,
          attributes: { providers: only },
        }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const events = (await res.text())
        .trim()
        .split("\n\n")
        .map((block) => ({ name: /^event: (\w+)/.exec(block)?.[1], data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) }));
      const deltas = events.filter((e) => e.name === "delta");
      expect(deltas.length, only).toBeGreaterThan(1);
      expect(deltas.map((e) => e.data.text).join("")).toBe(`Demo answer from ${only} (EU).`);
      expect(events.at(-1)).toMatchObject({ name: "done", data: { provider: only, finishReason: expect.any(String), usage: { outputTokens: 9 } } });
      expect(events.at(-1)!.data.attempts).toHaveLength(1);
    }
  });

  it("fails over away from a provider with an injected outage in that region only", async () => {
    const first = await execute("NA");
    const victim = first.body.provider;
    const now = Date.now();
    faults = [{ id: "f1", provider: victim, region: "NA", kind: "outage", magnitude: 1, startsAt: now - 1000, endsAt: now + 60_000 }];
    try {
      const during = await execute("NA");
      expect(during.status).toBe(200);
      expect(during.body.provider).not.toBe(victim);
      expect(during.body.attempts[0]).toMatchObject({ provider: victim, called: true });
      expect(during.body.attempts[0]!.errorClass).not.toBeNull();
      const elsewhere = await execute("APAC", { attributes: { providers: victim } });
      expect(elsewhere.status).toBe(200);
      expect(elsewhere.body.provider).toBe(victim);
    } finally {
      faults = [];
    }
  });

  it("carries the simulator's LLM_CHAT traffic, with business outcomes for what was served", async () => {
    const before = llm.calls();
    const sim = createSimulator({ baseUrl: server.url, rate: 40, operations: [{ key: "LLM_CHAT", weight: 1 }], random: () => 0.3 });
    sim.start();
    await expect.poll(() => sim.stats().decided, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(10);
    await sim.stop();
    const stats = sim.stats();
    expect(stats.decideErrors).toBe(0);
    expect(stats.outcomeErrors).toBe(0);
    expect(stats.outcomesSent).toBe(stats.decided);
    expect(llm.calls() - before).toBeGreaterThanOrEqual(stats.decided);
    const count = async (table: string) =>
      Number(
        (
          await pool.query<{ n: string }>(
            `select count(*) as n from ${table} o join decision d on d.id::text = o.decision_id where d.operation = 'LLM_CHAT' and d.request_id like 'sim-%'`,
          )
        ).rows[0]!.n,
      );
    expect(await count("business_outcome")).toBe(stats.decided);
    // Execute mode records its own provider calls (at least one per answered request).
    await expect.poll(() => count("provider_call_outcome"), { timeout: 10_000 }).toBeGreaterThanOrEqual(stats.decided);
  }, 40_000);
});
