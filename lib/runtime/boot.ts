import http from "node:http";
import { readFileSync } from "node:fs";
import path from "node:path";
import next from "next";
import { resolveDatabaseUrl, type TResolvedDatabase } from "../db/database-url";
import { applyMigrations, migrationStatus } from "../db/migrate";
import { getPrisma } from "../db/client";
import { seedDemo } from "../db/seed-demo";
import { isDemoMode, markDemoMode } from "../auth/demo-mode";
import { ensureAdminFromEnv } from "../auth/create-admin";
import { endExpiredOverrides } from "../controlplane/end-expired-overrides";
import { auditAnchorHealth, startAuditCheckpoints, stopAuditCheckpoints } from "../audit/checkpointer";
import { stampClientIp } from "../auth/client-ip";
import { publicOrigin } from "../auth/same-origin";
import { consoleGateOptionsFromEnv, gateConsoleRequest } from "./console-gate";
import { API_CSP, applyCommonSecurityHeaders, applyConsoleCsp, commonSecurityHeaders } from "./security-headers";
import { createFastPath } from "../dataplane/router";
import { createHealthCheck } from "../dataplane/health";
import { answerClientError, sendJson } from "../dataplane/http";
import { serverTimeoutsFromEnv } from "../dataplane/server-timeouts";
import { startDataPlane, type DataPlane } from "../dataplane/dataplane";
import { dataPlaneSettings } from "../dataplane/settings";
import { startTelemetry, telemetryOptionsFromEnv, type Telemetry } from "../dataplane/telemetry/runtime";
import { applyDemoTimings, demoRate, startDemoTraffic } from "../demo/demo-traffic";
import { gatewayRefreshMsFromEnv, startGateway, type Gateway } from "../gateway/gateway";
import { publishGatewayRuntime } from "../console/gateway-runtime";
import { createOpenAiCompatRoutes } from "../openai-compat/handler";
import { createLocalDecisionRoutes } from "../dataplane/local-decisions/handler";
import { createSnapshotFeed } from "../dataplane/snapshot/feed";

export type TBootOptions = {
  dev: boolean;
  port: number;
  host: string;
  dir: string;
  seed: boolean;
  log: (line: string) => void;
};

export type TRunningServer = { port: number; url: string; close(): Promise<void> };

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      if (err.code === "EADDRINUSE") reject(new Error(`port ${port} on ${host} is already in use (set PORT to another port)`));
      else if (err.code === "EACCES") reject(new Error(`no permission to listen on port ${port} on ${host}`));
      else reject(err);
    };
    const onListening = () => {
      server.off("error", onError);
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

/**
 * One process, one port: binds first (so a taken port fails before anything starts), then
 * brings up the database, migrations, demo seed and Next, answering 503 until ready.
 */
export async function bootSwitchyard(opts: TBootOptions): Promise<TRunningServer> {
  const version = (JSON.parse(readFileSync(path.join(opts.dir, "package.json"), "utf8")) as { version: string }).version;
  const startedAt = Date.now();
  let handler: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | null = null;
  const server = http.createServer(serverTimeoutsFromEnv(process.env), (req, res) => {
    if (handler) handler(req, res);
    else sendJson(res, 503, { error: { code: "starting", message: "Switchyard is starting" } }, { "retry-after": "1" });
  });
  server.keepAliveTimeout = 65_000;
  server.on("clientError", answerClientError);
  await listen(server, opts.port, opts.host);
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : opts.port;

  let db: TResolvedDatabase | null = null;
  let dataPlane: DataPlane | null = null;
  let telemetry: Telemetry | null = null;
  let gateway: Gateway | null = null;
  try {
    db = await resolveDatabaseUrl({ dataDir: path.join(opts.dir, ".data", "postgres") });
    process.env.DATABASE_URL = db.url;
    const { applied } = await applyMigrations(db.url);
    if (applied.length > 0) opts.log(`applied migrations: ${applied.join(", ")}`);
    if (markDemoMode({ embeddedDatabase: db.embedded, host: opts.host })) {
      opts.log("demo mode: one-click sign-in as each demo role at /login");
      const timings = applyDemoTimings(process.env);
      if (timings.length > 0) opts.log(`demo timings: ${timings.join(", ")}`);
    }
    if (opts.seed && (await seedDemo(getPrisma()))) opts.log("seeded demo data");
    const dpSettings = dataPlaneSettings(process.env, opts.dir);
    dataPlane = await startDataPlane({
      databaseUrl: db.url,
      prisma: getPrisma(),
      version,
      embeddedDatabase: db.embedded,
      settings: dpSettings,
      log: opts.log,
    });
    const dp = dataPlane;
    telemetry = await startTelemetry({
      databaseUrl: db.url,
      state: dp.state,
      instanceId: dpSettings.instanceId,
      reloadConfig: async () => {
        await dp.reloadConfig();
        await gateway?.reload();
      },
      spoolDir: dpSettings.spoolDir,
      decisionLogQueueDepth: () => dp.decisionLog.stats().queued,
      decisionLogLatency: dp.decisionLog.latency,
      log: opts.log,
      endExpiredOverrides: () => endExpiredOverrides(getPrisma()),
      ...telemetryOptionsFromEnv(process.env),
    });
    const tel = telemetry;
    gateway = await startGateway({
      state: dp.state,
      decisionLog: dp.decisionLog,
      pool: dp.pool,
      outcomes: tel.outcomes,
      instanceId: dpSettings.instanceId,
      log: opts.log,
      refreshMs: gatewayRefreshMsFromEnv(process.env),
    });
    const gw = gateway;
    publishGatewayRuntime(gw, dpSettings.instanceId);
    const admin = await ensureAdminFromEnv(getPrisma());
    if (admin) opts.log(`created admin ${admin} from SWITCHYARD_ADMIN_EMAIL`);
    // After the admin's entry, so the first checkpoint covers it (lib/audit/README.md).
    startAuditCheckpoints({ prisma: getPrisma(), databaseUrl: db.url, log: opts.log });

    // SWITCHYARD_DATAPLANE_ONLY=1 serves /api/v1 without Next (no production build needed): multi-instance tests and benchmarks.
    const app = process.env.SWITCHYARD_DATAPLANE_ONLY === "1" ? null : next({ dev: opts.dev, dir: opts.dir, hostname: opts.host, port });
    await app?.prepare();
    const nextHandler = app?.getRequestHandler() ?? null;
    const upgrade = app?.getUpgradeHandler();
    if (upgrade) server.on("upgrade", (req, socket, head) => void upgrade(req, socket, head));

    const snapshotFeed = createSnapshotFeed({ state: dp.state });
    const health = createHealthCheck({ version, startedAt, databaseUrl: db.url, embeddedDatabase: db.embedded, migrationStatus });
    const fastPath = createFastPath([
      {
        method: "GET",
        path: "/api/v1/health",
        handler: async (_req, res) => {
          const h = await health();
          const dataplane = dp.health();
          // Routing continues without Postgres (decide answers from cache and spools), so the
          // instance answers 200 and stays in a load balancer's rotation, saying "degraded".
          const status = h.status === "ok" && dataplane.dbAvailable ? "ok" : "degraded";
          sendJson(res, 200, { ...h, status, dataplane, telemetry: tel.health(), gateway: gw.health(), audit: auditAnchorHealth() });
        },
      },
      ...dp.routes,
      ...tel.routes,
      ...gw.routes,
      ...createOpenAiCompatRoutes({ gateway: gw }),
      ...createLocalDecisionRoutes({ state: dp.state, decisionLog: dp.decisionLog, instanceId: dpSettings.instanceId }),
      ...snapshotFeed.routes,
    ]);
    const securityHeaders = [...commonSecurityHeaders({ dev: opts.dev, https: publicOrigin()?.startsWith("https://") ?? false }), ["content-security-policy", API_CSP] as [string, string]];
    const gate = consoleGateOptionsFromEnv(process.env, getPrisma);
    handler = (req, res) => {
      applyCommonSecurityHeaders(res, securityHeaders);
      if (fastPath(req, res)) return;
      if (!nextHandler) {
        sendJson(res, 404, { error: { code: "not_found", message: "this instance serves only the data-plane API (SWITCHYARD_DATAPLANE_ONLY=1)" } });
        return;
      }
      stampClientIp(req);
      applyConsoleCsp(req, res, opts.dev);
      void gateConsoleRequest(req, res, gate).then((pass) => {
        if (pass) void nextHandler(req, res);
      });
    };

    // Demo mode's synthetic services call this server over HTTP, like any client would.
    const rate = isDemoMode() ? demoRate(process.env) : 0;
    const demoTraffic = isDemoMode()
      ? await startDemoTraffic({
          baseUrl: `http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${port}`,
          apiKey: process.env.SWITCHYARD_API_KEY,
          rate,
          prisma: getPrisma(),
          reloadGateway: async () => {
            await gw.reload();
          },
          log: opts.log,
        })
      : null;
    if (demoTraffic) opts.log(`demo LLM providers on ${demoTraffic.llmProviders.url} (LLM_CHAT's adapters point there)`);
    if (rate > 0) opts.log(`demo traffic: ${rate} calls/s across SEND_SMS, SEND_EMAIL (decide) and LLM_CHAT (execute); SWITCHYARD_DEMO_RATE=0 turns it off`);

    const resolvedDb = db;
    return {
      port,
      url: `http://${opts.host}:${port}`,
      close: async () => {
        stopAuditCheckpoints();
        await demoTraffic?.close().catch(() => {});
        // Long-polls of the routing snapshot answer now (304) instead of holding the close for their wait.
        snapshotFeed.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await app?.close().catch(() => {});
        await gw.close().catch(() => {});
        await tel.close().catch(() => {});
        await dp.close().catch(() => {});
        await getPrisma().$disconnect().catch(() => {});
        await resolvedDb.stop();
      },
    };
  } catch (err) {
    server.close();
    await gateway?.close().catch(() => {});
    await telemetry?.close().catch(() => {});
    await dataPlane?.close().catch(() => {});
    await db?.stop();
    throw err;
  }
}
