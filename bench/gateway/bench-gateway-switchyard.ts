import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import path from "node:path";
import { createPrisma } from "../../lib/db/client";
import { createScratchDatabase, type TScratchDatabase } from "../../lib/db/drift";
import type { TEmbeddedDatabase } from "../../lib/db/embedded";
import { benchPostgresServer } from "../lib/bench-postgres";
import { applyMigrations } from "../../lib/db/migrate";
import { seedLlmChat } from "../../lib/demo/seed-demo";
import { freePort } from "../../test/support/free-port";
import { waitForHealth } from "../../test/support/wait-for-health";
import type { TSwitchyardTarget } from "./target";
import { stopChild } from "../lib/child-process";
import { postgresServerPid } from "../lib/process-cpu";

const LLM_PROVIDERS = ["llm_openai", "llm_anthropic", "llm_gemini"] as const;

/**
 * Switchyard as the product runs it: `server.ts` (data-plane instance, no console) on a database
 * of its own, with LLM_CHAT's three providers all pointing at the benchmark's OpenAI-compatible
 * upstream, so a failover has somewhere to go, as Portkey's fallback targets do. Decisions are
 * logged with sync durability and every call's outcome is recorded, as in production.
 */
export async function startSwitchyardTarget(upstreamUrl: string, dataDir: string): Promise<TSwitchyardTarget> {
  let cluster: TEmbeddedDatabase | null = null;
  let scratch: TScratchDatabase | null = null;
  let server: ChildProcess | null = null;
  const spoolDir = path.join(dataDir, `spool-bench-gateway-${process.pid}`);
  const close = async () => {
    await stopChild(server);
    await scratch?.drop();
    await cluster?.stop();
    await rm(spoolDir, { recursive: true, force: true });
  };
  try {
    const pgServer = await benchPostgresServer(path.join(dataDir, "postgres-bench-gateway"), 54333);
    cluster = pgServer.cluster;
    scratch = await createScratchDatabase(pgServer.url, "switchyard_bench_gateway");
    await applyMigrations(scratch.url);
    const prisma = createPrisma(scratch.url);
    let postgresPid: number | null;
    try {
      postgresPid = await postgresServerPid(async (sql) => ({ rows: await prisma.$queryRawUnsafe<{ pid: number }[]>(sql) }));
      await seedLlmChat(prisma, { baseUrls: Object.fromEntries(LLM_PROVIDERS.map((p) => [p, `${upstreamUrl}/v1`])) });
      // One upstream speaks one protocol: every provider uses the OpenAI-compatible adapter here.
      await prisma.providerAdapter.updateMany({
        where: { providerKey: { in: [...LLM_PROVIDERS] } },
        data: { kind: "openai_chat", baseUrl: `${upstreamUrl}/v1` },
      });
    } finally {
      await prisma.$disconnect();
    }

    const port = await freePort();
    const apiKey = `sy_bench_${randomBytes(16).toString("hex")}`;
    // BENCH_SERVER_NODE_ARGS, e.g. "--cpu-prof": extra node flags for the server, as in bench:api.
    const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean);
    server = spawn(process.execPath, [...nodeArgs, "--import", "tsx", path.resolve("server.ts")], {
      stdio: ["ignore", process.env.BENCH_SERVER_STDOUT ? "inherit" : "ignore", "inherit"],
      env: {
        ...process.env,
        NODE_ENV: "production",
        DATABASE_URL: scratch.url,
        PORT: String(port),
        HOST: "127.0.0.1",
        SWITCHYARD_DATAPLANE_ONLY: "1",
        SWITCHYARD_SEED_DEMO: "0",
        SWITCHYARD_API_KEY: apiKey,
        SWITCHYARD_INSTANCE_ID: "bench-gateway",
        // The upstream is a local process: provider calls to loopback are refused unless allowed.
        SWITCHYARD_ALLOW_LOOPBACK_PROVIDERS: "1",
        SPOOL_DIR: spoolDir,
        OPENAI_API_KEY: "sk-bench-openai",
        ANTHROPIC_API_KEY: "sk-bench-anthropic",
        GEMINI_API_KEY: "bench-gemini",
      },
    });
    const base = `http://127.0.0.1:${port}`;
    await waitForHealth(base, server, 60_000);
    const target = {
      label: "switchyard",
      url: `${base}/api/v1/execute/LLM_CHAT`,
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ region: "EU", input: { messages: [{ role: "user", content: "Say hello in one word." }], maxTokens: 16 } }),
      pid: server.pid,
      postgresPid,
    };
    const probe = await fetch(target.url, { method: "POST", headers: target.headers, body: target.body });
    if (!probe.ok) throw new Error(`execute answered ${probe.status}: ${(await probe.text()).slice(0, 300)}`);
    return { target, close };
  } catch (err) {
    await close();
    throw err;
  }
}
