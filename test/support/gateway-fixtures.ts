import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type pg from "pg";
import { createPool } from "../../lib/dataplane/pool";
import { parseFactorList, type TFactorListInput } from "../../router-core/index";
import { createPrisma, type PrismaClient } from "../../lib/db/client";
import { llmChatPolicyYaml, seedDemo, seedLlmChat } from "../../lib/demo/seed-demo";
import { maintainPartitions } from "../../lib/dataplane/decision-log/partitions";
import { createTestDatabase, type TTestDatabase } from "./database";
import { startGatewayServer, type TGatewayServer } from "./gateway-server";
import { startMockProvider, type TMockKind, type TMockProvider } from "./mock-provider";

export const TEST_SECRETS = {
  OPENAI_API_KEY: "sk-test-openai-SECRET-7f3a9c",
  ANTHROPIC_API_KEY: "sk-ant-test-SECRET-41bd02",
  GEMINI_API_KEY: "gm-test-SECRET-93ce51",
  SMS_API_KEY: "sms-test-SECRET-0a77e4",
  // The SMS adapters' reference: inside the secrets namespace (lib/gateway/secret-namespace.ts).
  SWITCHYARD_SECRET_SMS_API_KEY: "sms-test-SECRET-0a77e4",
} as const;

export type TGatewayEnv = {
  db: TTestDatabase;
  prisma: PrismaClient;
  pool: pg.Pool;
  server: TGatewayServer;
  mocks: Record<"llm_openai" | "llm_anthropic" | "llm_gemini" | "provider_A" | "provider_B", TMockProvider>;
  /** Applies changed rows (adapters, limits) at once instead of waiting for the refresh. */
  reload(): Promise<void>;
  close(): Promise<void>;
};

export type TGatewayWorld = Pick<TGatewayEnv, "db" | "prisma" | "mocks">;

/**
 * A migrated database with the demo catalogue and LLM_CHAT, every provider pointing at a mock
 * on 127.0.0.1, and SEND_SMS's providers A and B on generic HTTP adapters. Breakers are made hard
 * to open so one test's failures do not reroute the next.
 */
export async function createGatewayWorld(): Promise<TGatewayWorld> {
  const db = await createTestDatabase();
  const prisma = createPrisma(db.url);
  const kinds: Record<keyof TGatewayEnv["mocks"], TMockKind> = {
    llm_openai: "openai",
    llm_anthropic: "anthropic",
    llm_gemini: "gemini",
    provider_A: "http_json",
    provider_B: "http_json",
  };
  const mocks = Object.fromEntries(
    await Promise.all(Object.entries(kinds).map(async ([k, kind]) => [k, await startMockProvider({ kind })] as const)),
  ) as TGatewayEnv["mocks"];
  await seedDemo(prisma);
  await seedLlmChat(prisma, {
    baseUrls: { llm_openai: `${mocks.llm_openai.url}/v1`, llm_anthropic: `${mocks.llm_anthropic.url}/v1`, llm_gemini: `${mocks.llm_gemini.url}/v1beta` },
  });
  await setLlmPolicy(prisma, { circuit_breaker: { consecutive_failures: 1000, min_calls: 1000 } });
  for (const key of ["provider_A", "provider_B"] as const) {
    await prisma.providerAdapter.create({
      data: {
        providerKey: key,
        kind: "http_json",
        baseUrl: mocks[key].url,
        credentialRef: "env:SWITCHYARD_SECRET_SMS_API_KEY",
        timeoutMs: 2_000,
        options: {
          method: "POST",
          path: "/sms/{{input.to}}",
          headers: { authorization: "Bearer {{credential}}" },
          body: { to: "{{input.to}}", text: "{{input.text}}", reference: "{{requestId}}" },
        },
      },
    });
  }
  await prisma.gatewayOperation.upsert({
    where: { operationKey: "LLM_CHAT" },
    update: { deadlineMs: 10_000 },
    create: { operationKey: "LLM_CHAT", deadlineMs: 10_000 },
  });
  return { db, prisma, mocks };
}

/** The world of createGatewayWorld with the gateway server. `apiKey`: the data plane's key (its own routes, e.g. GET /decisions/:id, check it); none: anonymous, as embedded. */
export async function createGatewayEnv(opts: { apiKey?: string } = {}): Promise<TGatewayEnv> {
  const { db, prisma, mocks } = await createGatewayWorld();
  const pool = createPool({ connectionString: db.url, max: 3 });
  await maintainPartitions(pool, { now: Date.now(), daysAhead: 1, retentionDays: 0 });
  const spoolDir = await mkdtemp(path.join(tmpdir(), "switchyard-gateway-"));
  const server = await startGatewayServer({
    databaseUrl: db.url,
    prisma,
    spoolDir,
    apiKey: opts.apiKey,
    env: { ...TEST_SECRETS },
    gateway: { backoff: { baseMs: 2, capMs: 10 } },
  });
  return {
    db,
    prisma,
    pool,
    server,
    mocks,
    reload: async () => {
      await server.gateway.reload();
    },
    close: async () => {
      await server.close();
      await Promise.all(Object.values(mocks).map((m) => m.close()));
      await pool.end();
      await prisma.$disconnect();
      await db.drop();
      await rm(spoolDir, { recursive: true, force: true });
    },
  };
}

/** Replaces LLM_CHAT's active document (the loader keys by version, so it is bumped). */
export async function setLlmPolicy(prisma: PrismaClient, changes: Partial<TFactorListInput>): Promise<void> {
  const base = parseFactorList(llmChatPolicyYaml());
  if (!base.ok) throw new Error("LLM_CHAT policy does not parse");
  const parsed = parseFactorList(JSON.stringify({ ...base.value, ...changes, max_metric_age_seconds: undefined }));
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => `${e.path}: ${e.message}`).join("; "));
  const pointer = await prisma.operationPolicy.findUniqueOrThrow({ where: { operationKey: "LLM_CHAT" } });
  await prisma.factorListVersion.update({ where: { id: pointer.activeVersionId! }, data: { document: parsed.value, version: { increment: 100 } } });
}
