import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma, type PrismaClient } from "../../lib/db/client";
import { createTestDatabase, type TTestDatabase } from "../../test/support/database";
import { bootSwitchyard, type TRunningServer } from "../../lib/server/boot";
import { loadControlRoutes } from "./control-routes";
import { controlEndpoints, controlIntendedWrites, controlMustRefuse, sendToControlRoute } from "./control-targets";
import { dataPlaneEndpoints, sendToDataPlane } from "./dataplane-targets";
import { prepareControlFixture, prepareDataPlaneFixture } from "./fuzz-fixtures";
import { formatReport, runFuzz, violationTotal } from "./fuzz-run";
import { formatBurstReport, formatHealthReport, formatSlowReport, runReuseBursts, startSideLoad } from "./fuzz-concurrent";
import { judgeMemory, sampleMemory } from "./memory";
import { createRowCounter, type RowCounter } from "./row-counts";
import { formatYamlReport, runYamlFuzz } from "./yaml-fuzz";
import { parseFactorList } from "../../router-core/index";

/**
 * The quick, seeded version of `npm run fuzz`: the same generators and invariants on a few
 * hundred cases, against the same server code (data-plane only, in-process).
 */
const SEED = 20261130;

let db: TTestDatabase;
let prisma: PrismaClient;
let pool: pg.Pool;
let server: TRunningServer;
let rows: RowCounter;
let spoolDir: string;
const apiKey = `fuzz-${randomBytes(12).toString("hex")}`;

beforeAll(async () => {
  db = await createTestDatabase();
  spoolDir = await mkdtemp(path.join(tmpdir(), "sy-fuzz-"));
  // Request timeouts of a second or two, so the slow clients below are cut off quickly.
  Object.assign(process.env, {
    DATABASE_URL: db.url,
    SWITCHYARD_DATAPLANE_ONLY: "1",
    SWITCHYARD_API_KEY: apiKey,
    SPOOL_DIR: spoolDir,
    IDEMPOTENCY_CACHE_BYTES: String(1024 * 1024),
    HEADERS_TIMEOUT_MS: "1000",
    REQUEST_TIMEOUT_MS: "2000",
  });
  server = await bootSwitchyard({ dev: false, port: 0, host: "127.0.0.1", dir: process.cwd(), seed: true, log: () => {} });
  prisma = createPrisma(db.url);
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  rows = await createRowCounter(pool);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await pool?.end();
  await prisma?.$disconnect();
  await db?.drop();
  await rm(spoolDir, { recursive: true, force: true });
  for (const k of ["SWITCHYARD_DATAPLANE_ONLY", "SWITCHYARD_API_KEY", "SPOOL_DIR", "IDEMPOTENCY_CACHE_BYTES", "HEADERS_TIMEOUT_MS", "REQUEST_TIMEOUT_MS"])
    delete process.env[k];
});

describe("fuzzing, quick and seeded (npm run fuzz runs 10,000+)", () => {
  it("data plane: no 5xx, no dropped connection, JSON error bodies, no rows for refused requests, keys enforced", async () => {
    const fixture = await prepareDataPlaneFixture({ port: server.port, prisma, apiKey });
    const doc = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as Parameters<typeof dataPlaneEndpoints>[0];
    const { endpoints, authenticated } = dataPlaneEndpoints(doc, fixture);
    expect(endpoints.map((e) => `${e.method} ${e.path}`)).toEqual(
      expect.arrayContaining([
        "POST /api/v1/decide",
        "POST /api/v1/outcomes",
        "GET /api/v1/decisions/{id}",
        "GET /api/v1/health",
        "GET /api/v1/metrics",
        "GET /api/v1/openapi.json",
      ]),
    );
    const memory = [{ at: 0, ...sampleMemory() }];
    const report = await runFuzz({
      endpoints,
      runs: 200,
      seed: SEED,
      rows,
      refusesDuplicateKeys: true,
      send: (req) => sendToDataPlane(server.port, req),
      mustRefuse: (req) => req.category === "bad_auth" && authenticated.has(req.endpoint),
      progressEvery: 100,
      onProgress: (done) => void memory.push({ at: done, ...sampleMemory() }),
    });
    expect(violationTotal(report), formatReport("data plane", report)).toBe(0);
    expect(report.requests).toBe(200);
    // Every category reached the server, and refusals named their field where one was at fault.
    for (const [category, s] of Object.entries(report.byCategory)) expect(s.sent, category).toBeGreaterThan(0);
    expect(report.byCategory.wrong_types.withField).toBeGreaterThan(0);
    expect(judgeMemory(memory).leak).toBe(false);
  }, 180_000);

  it("data plane, concurrently: slow clients get 408 and are closed, a requestId reused by concurrent calls for two regions answers only its own region, /health keeps answering", async () => {
    const fixture = await prepareDataPlaneFixture({ port: server.port, prisma, apiKey });
    const side = startSideLoad({ base: server.url, port: server.port, apiKey, slow: { count: 30, trickleMs: 200, limitMs: 60_000 } });
    const operation = fixture.decided[0]!.operation;
    const regions = fixture.decided.filter((d) => d.operation === operation).map((d) => d.region);
    side.during("concurrent requestId reuse bursts");
    const bursts = await runReuseBursts({
      base: server.url,
      apiKey,
      operation,
      regions: [regions[0]!, regions[1]!],
      rounds: 3,
      size: 50,
      loggedRegions: async (requestId) =>
        (await pool.query<{ region: string }>("select region from decision where request_id = $1", [requestId])).rows.map((r) => r.region),
    });
    expect(bursts.violations, formatBurstReport(bursts)).toEqual([]);
    expect(bursts.refused422).toBe(75);
    // Every slow connection opened so far is cut off by the 2 s request timeout; wait for the first round.
    await new Promise((r) => setTimeout(r, 3_500));
    const { health: healthReport, slow: slowReport } = await side.stop();
    expect(slowReport!.violations, formatSlowReport(slowReport!)).toEqual([]);
    expect(slowReport!.answered408).toBeGreaterThanOrEqual(30);
    // Timings are reported by npm run fuzz (limit 100 ms); here only that /health answered throughout.
    expect(healthReport.failures, formatHealthReport(healthReport, 100)).toBe(0);
    expect(healthReport.probes).toBeGreaterThan(10);
  }, 120_000);

  it("control plane handlers: the same invariants, called in-process as Next would", async () => {
    const routes = await loadControlRoutes();
    const origin = "http://switchyard.fuzz";
    const control = await prepareControlFixture(prisma, origin);
    const byEndpoint = new Map(routes.map((r) => [`${r.method} ${r.path}`, r]));
    const report = await runFuzz({
      endpoints: controlEndpoints(routes, control),
      runs: 120,
      seed: SEED,
      rows,
      prepare: control.ensureSession,
      send: (req) => sendToControlRoute(byEndpoint.get(req.endpoint)!, req, control),
      mustRefuse: (req) => controlMustRefuse(req, origin),
      intendedWrites: controlIntendedWrites,
    });
    expect(violationTotal(report), formatReport("control plane", report)).toBe(0);
    expect(report.requests).toBeGreaterThan(60);
  }, 180_000);

  it("factor-list parser: never throws, every rejection names its field, accepted lists round-trip", async () => {
    const listing = await readFile(path.resolve("router-core/policy/listing1.yaml"), "utf8");
    const report = runYamlFuzz(`${listing.trimEnd()}\nproviders: [provider_A, provider_B, provider_C]\n`, 200, SEED);
    expect(report.violationCount, formatYamlReport(report)).toBe(0);
    expect(report.accepted).toBeGreaterThan(0);
    expect(report.rejected).toBeGreaterThan(0);
  }, 60_000);

  it("factor-list parser: keys named like Object.prototype members are plain unknown fields (found by npm run fuzz)", () => {
    for (const key of ["toString", "constructor", "hasOwnProperty", "__proto__"]) {
      const result = parseFactorList(JSON.parse(`{"${key}": null, "operation": "X", "x": 1}`));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.errors.every((e) => e.path !== "" || e.message.length > 0)).toBe(true);
    }
  });
});
