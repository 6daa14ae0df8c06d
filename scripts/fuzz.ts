import { register } from "node:module";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { waitForHealth } from "../lib/runtime/wait-for-health";
import { withDatabase } from "../lib/db/database-url";

const HELP = `npm run fuzz [-- options]

Throws malformed, oversized, deeply nested, wrongly-typed and wrongly-encoded requests, bodies
with repeated keys and reused requestIds at every data-plane endpoint (a real server,
SWITCHYARD_DATAPLANE_ONLY=1, on a throwaway database) while 200 slow clients trickle headers and
bodies and /health is timed, then bursts of concurrent decides reusing one requestId; then every
control-plane route handler (called in-process), and generated factor lists at router-core's
parser. Exits 1 when an invariant breaks (see lib/reliability/README.md).

  --runs N          data-plane requests (default 10000)
  --control-runs N  control-plane requests (default 3000)
  --yaml-runs N     factor-list parser cases (default 2000)
  --seed N          fast-check seed (default: random, printed so a run can be repeated)
  --help            this text
`;

// Route modules import "server-only", which throws outside React's server build; an empty
// module stands in, as lib/testing/server-only-stub.ts does for the unit tests (a resolve
// hook, registered before any route module is imported).
register(
  `data:text/javascript,${encodeURIComponent('export async function resolve(s, c, next) { return s === "server-only" ? { url: "data:text/javascript,export{}", shortCircuit: true } : next(s, c); }')}`,
  import.meta.url,
);

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "10000" },
    "control-runs": { type: "string", default: "3000" },
    "yaml-runs": { type: "string", default: "2000" },
    seed: { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
function count(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`--${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return n;
}
const runs = count("runs", values.runs);
const controlRuns = count("control-runs", values["control-runs"]);
const yamlRuns = count("yaml-runs", values["yaml-runs"]);
const seed = values.seed === undefined ? randomBytes(4).readUInt32BE() >>> 1 : count("seed", values.seed);
const log = (line: string) => process.stdout.write(`fuzz: ${line}\n`);

/** The server's timeouts in this run (passed to it), and what a slow client may be held at most: the request timeout, one check interval, a second of slack. */
const HEADERS_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 10_000;
const SLOW_CLIENT_LIMIT_MS = REQUEST_TIMEOUT_MS + 2_000;
/** The issue's bound: no request may stall /health by more than this. */
const HEALTH_STALL_LIMIT_MS = 100;


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

async function main(): Promise<number> {
  const { startThrowawayCluster } = await import("../lib/testing/throwaway-cluster");
  const { applyMigrations } = await import("../lib/db/migrate");
  const { freePort } = await import("../lib/runtime/free-port");
  const { createPrisma } = await import("../lib/db/client");
  const { createRowCounter } = await import("../lib/reliability/row-counts");
  const { runFuzz, formatReport, violationTotal, describeRequest } = await import("../lib/reliability/fuzz-run");
  const { startSideLoad, formatHealthReport, formatSlowReport, runReuseBursts, formatBurstReport } = await import("../lib/reliability/fuzz-concurrent");
  const { dataPlaneEndpoints, sendToDataPlane } = await import("../lib/reliability/dataplane-targets");
  const { controlEndpoints, controlIntendedWrites, controlMustRefuse, sendToControlRoute } = await import("../lib/reliability/control-targets");
  const { prepareControlFixture, prepareDataPlaneFixture } = await import("../lib/reliability/fuzz-fixtures");
  const { formatMemory, judgeMemory, sampleMemory } = await import("../lib/reliability/memory");
  const { runYamlFuzz, formatYamlReport } = await import("../lib/reliability/yaml-fuzz");
  const { createSecretScanner, formatFindings } = await import("../lib/reliability/secret-scan");

  log(`seed ${seed} (repeat with --seed ${seed}); ${runs} data-plane, ${controlRuns} control-plane, ${yamlRuns} parser cases`);
  const cluster = await startThrowawayCluster();
  const dbName = `sy_fuzz_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: cluster.adminUrl });
  await admin.connect();
  await admin.query(`create database ${pg.escapeIdentifier(dbName)}`);
  await admin.end();
  const databaseUrl = withDatabase(cluster.adminUrl, dbName);
  await applyMigrations(databaseUrl);
  process.env.DATABASE_URL = databaseUrl;

  const apiKey = `fuzz-${randomBytes(16).toString("hex")}`;
  const spoolDir = await mkdtemp(path.join(tmpdir(), "sy-fuzz-spool-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const serverOutput: Array<{ source: string; text: string }> = [];
  const server = spawn(process.execPath, ["--import", "tsx", "--import", "./lib/reliability/memory-probe.ts", "server.ts"], {
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      SWITCHYARD_API_KEY: apiKey,
      SWITCHYARD_DATAPLANE_ONLY: "1",
      SWITCHYARD_SEED_DEMO: "1",
      SPOOL_DIR: spoolDir,
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      // Small, so a full idempotency cache is not mistaken for a leak.
      IDEMPOTENCY_CACHE_BYTES: String(1024 * 1024),
    },
  });
  server.stdout!.on("data", (b: Buffer) => serverOutput.push({ source: "server stdout", text: b.toString("utf8") }));
  server.stderr!.on("data", (b: Buffer) => serverOutput.push({ source: "server stderr", text: b.toString("utf8") }));
  const prisma = createPrisma(databaseUrl);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  let failed = false;
  try {
    await waitForHealth(base, server, 120_000);
    log(`data plane ready at ${base} (pid ${server.pid})`);
    const rows = await createRowCounter(pool);
    log(`watching rows in ${rows.tables.join(", ")}`);

    // ---- data plane
    const fixture = await prepareDataPlaneFixture({ port, prisma, apiKey });
    const doc = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as Parameters<typeof dataPlaneEndpoints>[0];
    const { endpoints, authenticated } = dataPlaneEndpoints(doc, fixture);
    log(`data-plane endpoints from the OpenAPI document: ${endpoints.map((e) => `${e.method} ${e.path}`).join(", ")}`);
    const serverMemory = [{ at: 0, ...(await memoryOf(server)) }];
    // Beside the one-at-a-time fuzzer: /health timed every 20 ms, and 200 connections trickling headers or bodies.
    const side = startSideLoad({ base, port, apiKey, slow: { count: 200, trickleMs: 500, limitMs: SLOW_CLIENT_LIMIT_MS } });
    const dp = await runFuzz({
      endpoints,
      runs,
      seed,
      rows,
      refusesDuplicateKeys: true,
      send: (req) => {
        side.during(describeRequest(req));
        return sendToDataPlane(port, req);
      },
      mustRefuse: (req) => req.category === "bad_auth" && authenticated.has(req.endpoint),
      progressEvery: Math.max(100, Math.floor(runs / 10)),
      onProgress: async (done) => {
        side.during("server memory sample (forced full GC)", true);
        serverMemory.push({ at: done, ...(await memoryOf(server)) });
        log(`data plane: ${done}/${runs}`);
      },
    });
    side.during("concurrent requestId reuse bursts");
    const decisionRegions = async (requestId: string) => (await pool.query<{ region: string }>("select region from decision where request_id = $1", [requestId])).rows.map((r) => r.region);
    const burstOperation = fixture.decided[0]!.operation;
    const burstRegions = fixture.decided.filter((d) => d.operation === burstOperation).map((d) => d.region);
    if (burstRegions.length < 2) throw new Error(`${burstOperation} routes only ${burstRegions.join(", ")}: the reuse bursts need two regions`);
    const bursts = await runReuseBursts({
      base,
      apiKey,
      operation: burstOperation,
      regions: [burstRegions[0]!, burstRegions[1]!],
      rounds: 20,
      size: 50,
      loggedRegions: decisionRegions,
    });
    const { health: healthReport, slow: slowReport } = await side.stop();
    if (serverMemory.at(-1)!.at !== runs) serverMemory.push({ at: runs, ...(await memoryOf(server)) });
    process.stdout.write(`\n${formatReport("data plane", dp)}\n${formatBurstReport(bursts)}\n${formatSlowReport(slowReport!)}\n${formatHealthReport(healthReport, HEALTH_STALL_LIMIT_MS)}\n${formatMemory("server", serverMemory)}\n`);
    failed ||= bursts.violations.length > 0 || slowReport!.violations.length > 0 || slowReport!.answered408 === 0;
    failed ||= healthReport.maxMs > HEALTH_STALL_LIMIT_MS || healthReport.failures > 0;
    const dpMemory = judgeMemory(serverMemory);
    process.stdout.write(`${dpMemory.leak ? "FAIL" : "ok  "} server memory flat: ${dpMemory.detail}\n\n`);
    if (server.exitCode !== null) throw new Error(`the server exited (code ${server.exitCode}) during the run`);
    failed ||= violationTotal(dp) > 0 || dpMemory.leak;

    // ---- control plane, in-process
    const { loadControlRoutes } = await import("../lib/reliability/control-routes");
    const routes = await loadControlRoutes();
    const origin = "http://switchyard.fuzz";
    const control = await prepareControlFixture(prisma, origin);
    const byEndpoint = new Map(routes.map((r) => [`${r.method} ${r.path}`, r]));
    const ownMemory = [{ at: 0, ...sampleMemory() }];
    const cp = await runFuzz({
      endpoints: controlEndpoints(routes, control),
      runs: controlRuns,
      seed,
      rows,
      prepare: control.ensureSession,
      send: (req) => sendToControlRoute(byEndpoint.get(req.endpoint)!, req, control),
      mustRefuse: (req) => controlMustRefuse(req, origin),
      intendedWrites: controlIntendedWrites,
      progressEvery: Math.max(100, Math.floor(controlRuns / 5)),
      onProgress: (done) => {
        ownMemory.push({ at: done, ...sampleMemory() });
        log(`control plane: ${done}/${controlRuns}`);
      },
    });
    process.stdout.write(`\n${formatReport(`control plane (${routes.length} handlers in-process)`, cp)}\n${formatMemory("fuzzer process (control-plane handlers)", ownMemory)}\n`);
    const cpMemory = judgeMemory(ownMemory);
    process.stdout.write(`${cpMemory.leak ? "FAIL" : "ok  "} control-plane memory flat: ${cpMemory.detail}\n\n`);
    failed ||= violationTotal(cp) > 0 || cpMemory.leak;

    // ---- factor-list parser
    const listing = await readFile(new URL("../router-core/policy/listing1.yaml", import.meta.url), "utf8");
    const yaml = runYamlFuzz(`${listing.trimEnd()}\nproviders: [provider_A, provider_B, provider_C]\n`, yamlRuns, seed);
    process.stdout.write(`${formatYamlReport(yaml)}\n\n`);
    failed ||= yaml.violationCount > 0;

    // ---- secrets in the server's output
    const scanner = createSecretScanner([
      { label: "SWITCHYARD_API_KEY", value: apiKey },
      ...Object.values(fixture.keysLacking).map((value) => ({ label: "scoped API key", value: value! })),
      ...control.tokens().map((value) => ({ label: "session token", value })),
    ]);
    for (const chunk of serverOutput) scanner.feed(chunk.source, chunk.text);
    const findings = scanner.findings();
    process.stdout.write(`${findings.length === 0 ? "ok  " : "FAIL"} no secret in ${scanner.stats().scannedChars} characters of server output\n${formatFindings(findings)}`);
    failed ||= findings.length > 0;
    process.stdout.write(`\n${failed ? "FAILED" : "PASSED"}: ${dp.requests + cp.requests} requests, ${yaml.cases} factor lists (seed ${seed})\n`);
    return failed ? 1 : 0;
  } finally {
    if (server.exitCode === null) {
      const exited = new Promise((r) => server.once("exit", r));
      server.kill("SIGTERM");
      await exited;
    }
    await pool.end();
    await prisma.$disconnect();
    await rm(spoolDir, { recursive: true, force: true });
    await cluster.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`fuzz: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
