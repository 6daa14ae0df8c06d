import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../db/client";
import { seedDemo, seedLlmChat } from "../demo/seed-demo";
import type { TFault } from "../demo/fault-model";
import { startDemoLlmProviders, type TDemoLlmServer } from "../demo/llm-providers";
import { pointLlmChatAtDemo } from "../demo/point-llm-chat-at-demo";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { sdkCalls } from "../../test/support/sdk-calls";
import { startServerInstance, type TServerInstance } from "../../test/support/server-instances";

/**
 * The official clients against a real server process (server.ts) on the demo seed, its LLM_CHAT
 * pointed at the demo's own LLM providers as a demo start does: every client, streamed and not,
 * through each of the three wire formats; and a chaos-panel outage fails over for all of them
 * without opening a breaker on a provider that only streamed.
 */
const KEY = "sy-sdk-demo-key";
let db: TTestDatabase;
let prisma: PrismaClient;
let llm: TDemoLlmServer;
let spoolRoot: string;
let server: TServerInstance;
let faults: TFault[] = [];
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url);
  // The demo seed with LLM_CHAT, as a demo-mode start seeds it (outside demo mode seedDemo leaves LLM_CHAT out).
  await seedDemo(prisma);
  await seedLlmChat(prisma);
  // A fixed draw: the demo's providers answer (their simulated failure rates are drawn per call).
  llm = await startDemoLlmProviders({ faults: () => faults, random: () => 0.5 });
  const secrets: Record<string, string> = {};
  expect(await pointLlmChatAtDemo(prisma, llm.url, secrets as NodeJS.ProcessEnv)).toBe(3);
  spoolRoot = await mkdtemp(path.join(tmpdir(), "switchyard-sdk-demo-"));
  server = await startServerInstance({
    name: "sdk-demo",
    databaseUrl: db.url,
    apiKey: KEY,
    spoolRoot,
    env: { ...secrets, SWITCHYARD_ALLOW_LOOPBACK_PROVIDERS: "1" },
  });
  openai = new OpenAI({ baseURL: `${server.url}/api/v1/openai`, apiKey: KEY, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: `${server.url}/api/v1/anthropic`, apiKey: KEY, maxRetries: 0 });
}, 120_000);

afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill("SIGTERM");
    await new Promise((r) => server.child.once("exit", r));
  }
  await llm?.close();
  await prisma?.$disconnect();
  await db?.drop();
  if (spoolRoot) await rm(spoolRoot, { recursive: true, force: true });
});

async function openBreakers(): Promise<string[]> {
  const metrics = await (await fetch(`${server.url}/api/v1/metrics`, { headers: { authorization: `Bearer ${KEY}` } })).text();
  return metrics.split("\n").filter((l) => l.startsWith("switchyard_breaker_state{") && l.includes('state="open"') && l.endsWith(" 1"));
}

describe("official clients against a server on the demo's LLM providers", () => {
  it("every client, streamed and not, is answered through each provider's wire format", async () => {
    for (const provider of ["llm_openai", "llm_anthropic", "llm_gemini"]) {
      const calls = sdkCalls(openai, anthropic, (r) => `LLM_CHAT@${r}`, { providers: provider });
      const served = await Promise.all(calls.map((c) => c.run("EU")));
      for (const [i, s] of served.entries()) {
        expect(s, `${calls[i]!.name} via ${provider}`).toEqual({ provider, text: `Demo answer from ${provider} (EU).` });
      }
    }
    expect(await openBreakers()).toEqual([]);
  }, 60_000);

  it("an outage injected on the selected provider fails over for every client", async () => {
    const first = await sdkCalls(openai, anthropic, (r) => `LLM_CHAT@${r}`)[0]!.run("EU");
    const victim = first.provider!;
    const now = Date.now();
    faults = [{ id: "f1", provider: victim, region: "EU", kind: "outage", magnitude: 1, startsAt: now - 1000, endsAt: now + 60_000 }];
    try {
      for (const call of sdkCalls(openai, anthropic, (r) => `LLM_CHAT@${r}`)) {
        const served = await call.run("EU");
        expect(served.provider, call.name).not.toBe(victim);
        expect(served.text, call.name).toBe(`Demo answer from ${served.provider} (EU).`);
      }
    } finally {
      faults = [];
    }
  }, 60_000);
});
