import http from "node:http";
import { readFileSync } from "node:fs";
import path from "node:path";
import next from "next";
import { resolveDatabaseUrl, type TResolvedDatabase, applyMigrations, migrationStatus, getPrisma } from "../db";
import { seedDemo, endExpiredFaults, applyDemoTimings, demoRate, startDemoTraffic } from "../demo";
import { isDemoMode, markDemoMode, stampClientIp, publicOrigin } from "../auth";
import { ensureAdminFromEnv, endExpiredOverrides } from "../controlplane";
import { trackIncidents } from "../incidents/index";
import { auditAnchorHealth, startAuditCheckpoints, stopAuditCheckpoints } from "../audit";
import { consoleGateOptionsFromEnv, gateConsoleRequest } from "./console-gate";
import { API_CSP, applyConsoleCsp, commonSecurityHeaders, securityHeaders } from "../runtime";
import { createFastPath, authenticateRequest, dataPlaneAuthenticator, answerClientError, errorBody, sendJson, serverTimeoutsFromEnv } from "../edge";
import {
  createHealthCheck,
  createHealthRoute,
  createLocalDecisionRoutes,
  createSnapshotFeed,
  startDataPlane,
  type DataPlane,
  dataPlaneSettings,
  startTelemetry,
  telemetryOptionsFromEnv,
  type Telemetry,
} from "../dataplane";
import { createOpenAiCompatRoutes } from "../openai-compat";
import { createAnthropicCompatRoutes } from "../anthropic-compat";
import { decisionStoreOpener, decisionStoreSettings } from "../decision-store/index";
import { gatewayRefreshMsFromEnv, startGateway, type Gateway } from "../gateway";
import { publishGatewayRuntime } from "../console";
import { createNotificationDispatcher, dispatcherSettingsFromEnv, type NotificationDispatcher } from "../notify";

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

/** What has started so far, so a failed boot stops exactly that. */
type TStarted = { db?: TResolvedDatabase; dataPlane?: DataPlane; telemetry?: Telemetry; gateway?: Gateway; notifications?: NotificationDispatcher };

/** The database (embedded or DATABASE_URL), migrated; demo mode and its seed when they apply. */
async function prepareDatabase(opts: TBootOptions, started: TStarted): Promise<TResolvedDatabase> {
  const db = await resolveDatabaseUrl({ dataDir: path.join(opts.dir, ".data", "postgres") });
  started.db = db;
  process.env.DATABASE_URL = db.url;
  const { applied } = await applyMigrations(db.url);
  if (applied.length > 0) opts.log(`applied migrations: ${applied.join(", ")}`);
  if (markDemoMode({ embeddedDatabase: db.embedded, host: opts.host })) {
    opts.log("demo mode: one-click sign-in as each demo role at /login");
    const timings = applyDemoTimings(process.env);
    if (timings.length > 0) opts.log(`demo timings: ${timings.join(", ")}`);
  }
  if (opts.seed && (await seedDemo(getPrisma()))) opts.log("seeded demo data");
  return db;
}

/** The data plane, its telemetry and the gateway, wired to each other; the authenticator is built here from the settings. */
async function startServices(opts: TBootOptions, db: TResolvedDatabase, version: string, started: TStarted) {
  const dpSettings = dataPlaneSettings(process.env, opts.dir);
  const authenticate = dataPlaneAuthenticator({ apiKey: dpSettings.apiKey, embeddedDatabase: db.embedded, prisma: getPrisma() });
  const dp = await startDataPlane({
    databaseUrl: db.url,
    prisma: getPrisma(),
    version,
    embeddedDatabase: db.embedded,
    settings: dpSettings,
    openDecisionStore: decisionStoreOpener(decisionStoreSettings(process.env)),
    authenticate,
    log: opts.log,
  });
  started.dataPlane = dp;
  const tel = await startTelemetry({
    databaseUrl: db.url,
    state: dp.state,
    instanceId: dpSettings.instanceId,
    reloadConfig: async () => {
      await dp.reloadConfig();
      await started.gateway?.reload();
    },
    spoolDir: dpSettings.spoolDir,
    decisionReads: dp.decisionReads,
    decisionLogQueueDepth: () => dp.decisionLog.stats().queued,
    decisionLogLatency: dp.decisionLog.latency,
    decisionLogSpoolBytes: () => dp.decisionLog.stats().spool.usedBytes,
    quotas: dp.quotaUsage,
    executeQueue: () => (started.gateway ? { depth: started.gateway.context.jobs.depth, durable: started.gateway.context.jobs.durable } : null),
    log: opts.log,
    // The leader's expiry sweep also records chaos faults whose planned end passed (demo mode only has any).
    endExpiredOverrides: () => Promise.all([endExpiredOverrides(getPrisma()), endExpiredFaults(getPrisma())]),
    trackIncidents: () => trackIncidents(getPrisma()),
    authenticate,
    ...telemetryOptionsFromEnv(process.env),
  });
  started.telemetry = tel;
  const gw = await startGateway({
    state: dp.state,
    decisionLog: dp.decisionLog,
    pool: dp.pool,
    outcomes: tel.outcomes,
    spendTokens: dp.spendTokens,
    instanceId: dpSettings.instanceId,
    log: opts.log,
    refreshMs: gatewayRefreshMsFromEnv(process.env),
  });
  started.gateway = gw;
  publishGatewayRuntime(gw, dpSettings.instanceId);
  // Every instance dispatches; the outbox's claims make each notification go out once per cluster.
  const notifications = createNotificationDispatcher({
    prisma: getPrisma(),
    instanceId: dpSettings.instanceId,
    log: opts.log,
    settings: dispatcherSettingsFromEnv(process.env),
  });
  notifications.start();
  started.notifications = notifications;
  const snapshotFeed = createSnapshotFeed({ state: dp.state });
  const clientRoutes = [
    ...createOpenAiCompatRoutes({ gateway: gw }),
    ...createAnthropicCompatRoutes({ gateway: gw }),
    ...createLocalDecisionRoutes({ state: dp.state, decisionLog: dp.decisionLog, instanceId: dpSettings.instanceId, spendQuota: dp.spendQuota, pool: dp.pool }),
    ...snapshotFeed.routes,
  ];
  return { dp, tel, gw, snapshotFeed, clientRoutes };
}

type TServices = Awaited<ReturnType<typeof startServices>>;

/** Every request (its security headers set by bootSwitchyard's `secure`): the /api/v1 fast path, else the console gate and Next. */
async function createRequestHandler(opts: TBootOptions, port: number, db: TResolvedDatabase, version: string, startedAt: number, services: TServices) {
  const { dp, tel, gw, clientRoutes } = services;
  // SWITCHYARD_DATAPLANE_ONLY=1 serves /api/v1 without Next (no production build needed): multi-instance tests and benchmarks.
  const app = process.env.SWITCHYARD_DATAPLANE_ONLY === "1" ? null : next({ dev: opts.dev, dir: opts.dir, hostname: opts.host, port });
  await app?.prepare();
  const nextHandler = app?.getRequestHandler() ?? null;
  const health = createHealthCheck({ version, startedAt, databaseUrl: db.url, embeddedDatabase: db.embedded, migrationStatus });
  const fastPath = createFastPath([
    {
      method: "GET",
      path: "/api/v1/health",
      handler: createHealthRoute({
        authenticate: authenticateRequest,
        report: async () => {
          const h = await health();
          const dataplane = dp.health();
          // Routing continues without Postgres (decide answers from cache and spools), so the
          // instance answers 200 and stays in a load balancer's rotation, saying "degraded".
          const status = h.status === "ok" && dataplane.dbAvailable ? ("ok" as const) : ("degraded" as const);
          return { ...h, status, dataplane, telemetry: tel.health(), gateway: gw.health(), audit: auditAnchorHealth() };
        },
      }),
    },
    ...dp.routes,
    ...tel.routes,
    ...gw.routes,
    ...clientRoutes,
  ]);
  const gate = consoleGateOptionsFromEnv(process.env, getPrisma);
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (fastPath(req, res)) return;
    if (!nextHandler) {
      sendJson(res, 404, errorBody("not_found", "this instance serves only the data-plane API (SWITCHYARD_DATAPLANE_ONLY=1)"));
      return;
    }
    stampClientIp(req);
    applyConsoleCsp(req, res, opts.dev);
    void gateConsoleRequest(req, res, gate).then((pass) => {
      if (pass) void nextHandler(req, res);
    });
  };
  return { app, handler };
}

/** Demo mode's synthetic services call this server over HTTP, like any client would. */
async function startDemo(opts: TBootOptions, port: number, gw: Gateway) {
  if (!isDemoMode()) return null;
  const rate = demoRate(process.env);
  const demoTraffic = await startDemoTraffic({
    baseUrl: `http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${port}`,
    apiKey: process.env.SWITCHYARD_API_KEY,
    rate,
    prisma: getPrisma(),
    reloadGateway: async () => {
      await gw.reload();
    },
    log: opts.log,
  });
  opts.log(`demo LLM providers on ${demoTraffic.llmProviders.url} (LLM_CHAT's adapters point there)`);
  if (rate > 0) opts.log(`demo traffic: ${rate} calls/s across SEND_SMS, SEND_EMAIL (decide) and LLM_CHAT (execute); SWITCHYARD_DEMO_RATE=0 turns it off`);
  return demoTraffic;
}

/**
 * One process, one port: binds first (so a taken port fails before anything starts), then
 * brings up the database, migrations, demo seed and Next, answering 503 until ready.
 */
export async function bootSwitchyard(opts: TBootOptions): Promise<TRunningServer> {
  const version = (JSON.parse(readFileSync(path.join(opts.dir, "package.json"), "utf8")) as { version: string }).version;
  const startedAt = Date.now();
  let handler: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | null = null;
  // Security headers on every answer: the console's own CSP where it sets one, API_CSP elsewhere.
  const secure = securityHeaders([
    ...commonSecurityHeaders({ dev: opts.dev, https: publicOrigin()?.startsWith("https://") ?? false }),
    ["content-security-policy", API_CSP],
  ]);
  const server = http.createServer(serverTimeoutsFromEnv(process.env), (req, res) => {
    secure(res);
    if (handler) handler(req, res);
    else sendJson(res, 503, errorBody("starting", "Switchyard is starting"), { "retry-after": "1" });
  });
  server.keepAliveTimeout = 65_000;
  server.on("clientError", answerClientError);
  await listen(server, opts.port, opts.host);
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : opts.port;

  const started: TStarted = {};
  try {
    const db = await prepareDatabase(opts, started);
    const services = await startServices(opts, db, version, started);
    const admin = await ensureAdminFromEnv(getPrisma());
    if (admin) opts.log(`created admin ${admin} from SWITCHYARD_ADMIN_EMAIL`);
    // After the admin's entry, so the first checkpoint covers it (lib/audit/README.md).
    startAuditCheckpoints({ prisma: getPrisma(), databaseUrl: db.url, log: opts.log });

    const request = await createRequestHandler(opts, port, db, version, startedAt, services);
    const upgrade = request.app?.getUpgradeHandler();
    if (upgrade) server.on("upgrade", (req, socket, head) => void upgrade(req, socket, head));
    handler = request.handler;
    const demoTraffic = await startDemo(opts, port, services.gw);

    return {
      port,
      url: `http://${opts.host}:${port}`,
      close: async () => {
        stopAuditCheckpoints();
        await demoTraffic?.close().catch(() => {});
        // Long-polls of the routing snapshot answer now (304) instead of holding the close for their wait.
        services.snapshotFeed.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await request.app?.close().catch(() => {});
        await started.notifications?.stop().catch(() => {});
        await services.gw.close().catch(() => {});
        await services.tel.close().catch(() => {});
        await services.dp.close().catch(() => {});
        await getPrisma()
          .$disconnect()
          .catch(() => {});
        await db.stop();
      },
    };
  } catch (err) {
    server.close();
    await started.notifications?.stop().catch(() => {});
    await started.gateway?.close().catch(() => {});
    await started.telemetry?.close().catch(() => {});
    await started.dataPlane?.close().catch(() => {});
    await started.db?.stop();
    throw err;
  }
}
