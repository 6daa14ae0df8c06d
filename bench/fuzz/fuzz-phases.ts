import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import type { PrismaClient } from "../../lib/db/client";
import { withDatabase } from "../../lib/db/database-url";
import { applyMigrations } from "../../lib/db/migrate";
import { createPrisma } from "../../lib/db/client";
import { freePort } from "../../test/support/free-port";
import { waitForHealth } from "../../test/support/wait-for-health";
import { startThrowawayCluster } from "../../test/support/throwaway-cluster";
import { createSecretScanner, formatFindings } from "../../test/support/secret-scan";
import { controlEndpoints, controlIntendedWrites, controlMustRefuse, sendToControlRoute } from "./control-targets";
import { dataPlaneEndpoints, sendToDataPlane } from "./dataplane-targets";
import { formatBurstReport, formatHealthReport, formatSlowReport, runReuseBursts, startSideLoad } from "./fuzz-concurrent";
import { prepareControlFixture, prepareDataPlaneFixture } from "./fuzz-fixtures";
import { describeRequest, formatReport, runFuzz, violationTotal } from "./fuzz-run";
import { formatMemory, judgeMemory, sampleMemory } from "./memory";
import { createRowCounter } from "./row-counts";
import { loadPerCore, loopOf, stallFindings, writeFuzzResult, type TStallFindings } from "./stall-report";
import { formatYamlReport, runYamlFuzz } from "./yaml-fuzz";

/** The phases of `npm run fuzz` (fuzz.ts registers the server-only stub, then imports this). */

export type TFuzzOptions = { runs: number; controlRuns: number; yamlRuns: number; seed: number };

const log = (line: string) => process.stdout.write(`fuzz: ${line}\n`);

/** The server's timeouts in this run (passed to it), and what a slow client may be held at most: the request timeout, one check interval, a second of slack. */
const HEADERS_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 10_000;
const SLOW_CLIENT_LIMIT_MS = REQUEST_TIMEOUT_MS + 2_000;
/** The issue's bound: no request may stall /health by more than this. */
const HEALTH_STALL_LIMIT_MS = 100;

type TServer = { server: ChildProcess; port: number; base: string; apiKey: string; output: Array<{ source: string; text: string }> };
type TRows = Awaited<ReturnType<typeof createRowCounter>>;
type TDataPlaneFixture = Awaited<ReturnType<typeof prepareDataPlaneFixture>>;
type TControlFixture = Awaited<ReturnType<typeof prepareControlFixture>>;
type TPhase = { failed: boolean; requests: number; stalls?: TStallFindings };

function memoryOf(server: ChildProcess): Promise<{ heapUsed: number; rss: number }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the server did not answer the memory probe")), 10_000);
    const onMessage = (m: { type?: string; heapUsed: number; rss: number }) => {
      if (m?.type !== "sy:memory") return;
      clearTimeout(timer);
      server.off("message", onMessage);
      resolve({ heapUsed: m.heapUsed, rss: m.rss });
    };
    server.on("message", onMessage);
    server.send("sy:memory");
  });
}

/** A fresh database on the throwaway cluster, migrated. */
async function createFuzzDatabase(adminUrl: string): Promise<string> {
  const dbName = `sy_fuzz_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${pg.escapeIdentifier(dbName)}`);
  await admin.end();
  const databaseUrl = withDatabase(adminUrl, dbName);
  await applyMigrations(databaseUrl);
  return databaseUrl;
}

/** server.ts in data-plane-only mode with the memory probe; its output is kept for the secret scan. */
async function spawnServer(databaseUrl: string, spoolDir: string): Promise<TServer> {
  const apiKey = `fuzz-${randomBytes(16).toString("hex")}`;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const output: TServer["output"] = [];
  const server = spawn(process.execPath, ["--import", "tsx", "--import", "./bench/fuzz/memory-probe.ts", "server.ts"], {
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      SWITCHYARD_API_KEY: apiKey,
      SWITCHYARD_SEED_DEMO: "1",
      SWITCHYARD_DATAPLANE_ONLY: "1",
      SPOOL_DIR: spoolDir,
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      // Small, so a full idempotency cache is not mistaken for a leak.
      IDEMPOTENCY_CACHE_BYTES: String(1024 * 1024),
    },
  });
  server.stdout!.on("data", (b: Buffer) => output.push({ source: "server stdout", text: b.toString("utf8") }));
  server.stderr!.on("data", (b: Buffer) => output.push({ source: "server stderr", text: b.toString("utf8") }));
  return { server, port, base, apiKey, output };
}

/** Concurrent decides reusing one requestId across two regions: one answer, one logged region per id. */
async function reuseBursts(s: TServer, pool: pg.Pool, fixture: TDataPlaneFixture) {
  const decisionRegions = async (requestId: string) =>
    (await pool.query<{ region: string }>("select region from decision where request_id = $1", [requestId])).rows.map((r) => r.region);
  const burstOperation = fixture.decided[0]!.operation;
  const burstRegions = fixture.decided.filter((d) => d.operation === burstOperation).map((d) => d.region);
  if (burstRegions.length < 2) throw new Error(`${burstOperation} routes only ${burstRegions.join(", ")}: the reuse bursts need two regions`);
  return runReuseBursts({
    base: s.base,
    apiKey: s.apiKey,
    operation: burstOperation,
    regions: [burstRegions[0]!, burstRegions[1]!],
    rounds: 20,
    size: 50,
    loggedRegions: decisionRegions,
  });
}

/**
 * The data plane over HTTP, one request at a time, beside /health timed every 20 ms and 200
 * connections trickling headers or bodies; then the reuse bursts and the server's memory.
 */
async function fuzzDataPlane(s: TServer, opts: TFuzzOptions, rows: TRows, pool: pg.Pool, fixture: TDataPlaneFixture): Promise<TPhase> {
  const { server, port, base, apiKey } = s;
  const doc = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as Parameters<typeof dataPlaneEndpoints>[0];
  const { endpoints, authenticated } = dataPlaneEndpoints(doc, fixture);
  log(`data-plane endpoints from the OpenAPI document: ${endpoints.map((e) => `${e.method} ${e.path}`).join(", ")}`);
  const serverMemory = [{ at: 0, ...(await memoryOf(server)) }];
  const loadBefore = loadPerCore();
  const side = startSideLoad({ base, port, apiKey, slow: { count: 200, trickleMs: 500, limitMs: SLOW_CLIENT_LIMIT_MS } });
  const dp = await runFuzz({
    endpoints,
    runs: opts.runs,
    seed: opts.seed,
    rows,
    refusesDuplicateKeys: true,
    send: (req) => {
      side.during(describeRequest(req));
      return sendToDataPlane(port, req);
    },
    mustRefuse: (req) => req.category === "bad_auth" && authenticated.has(req.endpoint),
    progressEvery: Math.max(100, Math.floor(opts.runs / 10)),
    onProgress: async (done) => {
      side.during("server memory sample (forced full GC)", true);
      serverMemory.push({ at: done, ...(await memoryOf(server)) });
      log(`data plane: ${done}/${opts.runs}`);
    },
  });
  side.during("concurrent requestId reuse bursts");
  const bursts = await reuseBursts(s, pool, fixture);
  const { health: healthReport, slow: slowReport } = await side.stop();
  const stalls = stallFindings(healthReport, await loopOf(server), loadBefore, HEALTH_STALL_LIMIT_MS, side.inFlight);
  if (serverMemory.at(-1)!.at !== opts.runs) serverMemory.push({ at: opts.runs, ...(await memoryOf(server)) });
  process.stdout.write(
    `\n${formatReport("data plane", dp)}\n${formatBurstReport(bursts)}\n${formatSlowReport(slowReport!)}\n${formatHealthReport(healthReport, HEALTH_STALL_LIMIT_MS)}\n${stalls.text}\n${formatMemory("server", serverMemory)}\n`,
  );
  let failed = bursts.violations.length > 0 || slowReport!.violations.length > 0 || slowReport!.answered408 === 0;
  // A slow probe alone may be the machine (the server not scheduled): a stall is judged inside the server (stall-report.ts).
  failed ||= healthReport.failures > 0 || stalls.findings.busyStall;
  const dpMemory = judgeMemory(serverMemory);
  process.stdout.write(`${dpMemory.leak ? "FAIL" : "ok  "} server memory flat: ${dpMemory.detail}\n\n`);
  if (server.exitCode !== null) throw new Error(`the server exited (code ${server.exitCode}) during the run`);
  failed ||= violationTotal(dp) > 0 || dpMemory.leak;
  return { failed, requests: dp.requests, stalls: stalls.findings };
}

/** Every control-plane route handler, called in-process, with this process's memory watched. */
async function fuzzControlPlane(opts: TFuzzOptions, rows: TRows, control: TControlFixture, origin: string): Promise<TPhase> {
  const { loadControlRoutes } = await import("./control-routes");
  const routes = await loadControlRoutes();
  const byEndpoint = new Map(routes.map((r) => [`${r.method} ${r.path}`, r]));
  const ownMemory = [{ at: 0, ...sampleMemory() }];
  const cp = await runFuzz({
    endpoints: controlEndpoints(routes, control),
    runs: opts.controlRuns,
    seed: opts.seed,
    rows,
    prepare: control.ensureSession,
    send: (req) => sendToControlRoute(byEndpoint.get(req.endpoint)!, req, control),
    mustRefuse: (req) => controlMustRefuse(req, origin),
    intendedWrites: controlIntendedWrites,
    progressEvery: Math.max(100, Math.floor(opts.controlRuns / 5)),
    onProgress: (done) => {
      ownMemory.push({ at: done, ...sampleMemory() });
      log(`control plane: ${done}/${opts.controlRuns}`);
    },
  });
  process.stdout.write(
    `\n${formatReport(`control plane (${routes.length} handlers in-process)`, cp)}\n${formatMemory("fuzzer process (control-plane handlers)", ownMemory)}\n`,
  );
  const cpMemory = judgeMemory(ownMemory);
  process.stdout.write(`${cpMemory.leak ? "FAIL" : "ok  "} control-plane memory flat: ${cpMemory.detail}\n\n`);
  return { failed: violationTotal(cp) > 0 || cpMemory.leak, requests: cp.requests };
}

/** Generated factor lists at router-core's parser. */
async function fuzzParser(opts: TFuzzOptions): Promise<{ failed: boolean; cases: number }> {
  const listing = await readFile(new URL("../../router-core/policy/listing1.yaml", import.meta.url), "utf8");
  const yaml = runYamlFuzz(`${listing.trimEnd()}\nproviders: [provider_A, provider_B, provider_C]\n`, opts.yamlRuns, opts.seed);
  process.stdout.write(`${formatYamlReport(yaml)}\n\n`);
  return { failed: yaml.violationCount > 0, cases: yaml.cases };
}

/** No API key or session token anywhere in the server's output. */
function scanServerOutput(s: TServer, fixture: TDataPlaneFixture, control: TControlFixture): boolean {
  const scanner = createSecretScanner([
    { label: "SWITCHYARD_API_KEY", value: s.apiKey },
    ...Object.values(fixture.keysLacking).map((value) => ({ label: "scoped API key", value: value! })),
    ...control.tokens().map((value) => ({ label: "session token", value })),
  ]);
  for (const chunk of s.output) scanner.feed(chunk.source, chunk.text);
  const findings = scanner.findings();
  process.stdout.write(
    `${findings.length === 0 ? "ok  " : "FAIL"} no secret in ${scanner.stats().scannedChars} characters of server output\n${formatFindings(findings)}`,
  );
  return findings.length > 0;
}

async function runPhases(s: TServer, opts: TFuzzOptions, prisma: PrismaClient, pool: pg.Pool): Promise<number> {
  await waitForHealth(s.base, s.server, 120_000);
  log(`data plane ready at ${s.base} (pid ${s.server.pid})`);
  const rows = await createRowCounter(pool);
  log(`watching rows in ${rows.tables.join(", ")}`);
  const fixture = await prepareDataPlaneFixture({ port: s.port, prisma, apiKey: s.apiKey });
  const dp = await fuzzDataPlane(s, opts, rows, pool, fixture);
  const origin = "http://switchyard.fuzz";
  const control = await prepareControlFixture(prisma, origin);
  const cp = await fuzzControlPlane(opts, rows, control, origin);
  const parser = await fuzzParser(opts);
  const leaked = scanServerOutput(s, fixture, control);
  const failed = dp.failed || cp.failed || parser.failed || leaked;
  process.stdout.write(`\n${failed ? "FAILED" : "PASSED"}: ${dp.requests + cp.requests} requests, ${parser.cases} factor lists (seed ${opts.seed})\n`);
  if (dp.stalls)
    log(`wrote ${writeFuzzResult(dp.stalls, { seed: opts.seed, runs: opts.runs, failed, requests: dp.requests + cp.requests }, HEALTH_STALL_LIMIT_MS)}`);
  return failed ? 1 : 0;
}

/** The whole run on a throwaway cluster; 1 when an invariant broke. */
export async function runFuzzing(opts: TFuzzOptions): Promise<number> {
  log(`seed ${opts.seed} (repeat with --seed ${opts.seed}); ${opts.runs} data-plane, ${opts.controlRuns} control-plane, ${opts.yamlRuns} parser cases`);
  const cluster = await startThrowawayCluster();
  const databaseUrl = await createFuzzDatabase(cluster.adminUrl);
  process.env.DATABASE_URL = databaseUrl;
  const spoolDir = await mkdtemp(path.join(tmpdir(), "sy-fuzz-spool-"));
  const s = await spawnServer(databaseUrl, spoolDir);
  const prisma = createPrisma(databaseUrl);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  try {
    return await runPhases(s, opts, prisma, pool);
  } finally {
    if (s.server.exitCode === null) {
      const exited = new Promise((r) => s.server.once("exit", r));
      s.server.kill("SIGTERM");
      await exited;
    }
    await pool.end();
    await prisma.$disconnect();
    await rm(spoolDir, { recursive: true, force: true });
    await cluster.stop();
  }
}
