import http from "node:http";
import type { AddressInfo } from "node:net";
import type { PrismaClient } from "../../lib/db/client";
import { startDataPlane, type DataPlane } from "../../lib/dataplane/dataplane";
import { answerClientError } from "../../lib/edge/http";
import { createFastPath } from "../../lib/edge/router";
import { serverTimeoutsFromEnv } from "../../lib/edge/server-timeouts";
import type { TDataPlaneSettings } from "../../lib/dataplane/settings";
import { startTelemetry, type Telemetry } from "../../lib/dataplane/telemetry/runtime";
import { startGateway, type Gateway, type TGatewayOptions } from "../../lib/gateway/gateway";
import { createOpenAiCompatRoutes } from "../../lib/openai-compat/handler";
import { createAnthropicCompatRoutes } from "../../lib/anthropic-compat/handler";
import { createLocalDecisionRoutes } from "../../lib/dataplane/local-decisions/handler";
import { createSnapshotFeed } from "../../lib/dataplane/snapshot/feed";

export type TGatewayServerOptions = {
  databaseUrl: string;
  prisma: PrismaClient;
  spoolDir: string;
  apiKey?: string;
  durability?: "sync" | "async";
  env?: Readonly<Record<string, string | undefined>>;
  log?: (line: string) => void;
  gateway?: Pick<TGatewayOptions, "backoff" | "refreshMs" | "random">;
};

export type TGatewayServer = { url: string; dataPlane: DataPlane; telemetry: Telemetry; gateway: Gateway; close(): Promise<void> };

/**
 * The data-plane fast path with telemetry and execute mode on one node:http server, without
 * Next: what server.ts serves under /api/v1, for tests and the gateway benchmark.
 */
export async function startGatewayServer(opts: TGatewayServerOptions): Promise<TGatewayServer> {
  const log = opts.log ?? (() => {});
  const settings: TDataPlaneSettings = {
    durability: opts.durability ?? "sync",
    retentionDays: 30,
    partitionDaysAhead: 1,
    spoolDir: opts.spoolDir,
    spoolMaxBytes: 64 * 1024 ** 2,
    maxBuffered: 50_000,
    logConcurrency: 3,
    logMaxBatch: 500,
    logLingerMs: 2,
    idempotencyCacheBytes: 16 * 1024 ** 2,
    apiKey: opts.apiKey,
    instanceId: `gateway-test:${process.pid}`,
  };
  const dataPlane = await startDataPlane({ databaseUrl: opts.databaseUrl, prisma: opts.prisma, version: "test", embeddedDatabase: true, settings, log });
  const telemetry = await startTelemetry({
    databaseUrl: opts.databaseUrl,
    state: dataPlane.state,
    instanceId: settings.instanceId,
    reloadConfig: async () => {
      await dataPlane.reloadConfig();
    },
    spoolDir: opts.spoolDir,
    log,
    metricsRefreshMs: 60_000,
    controllerTickMs: 60_000,
  });
  const gateway = await startGateway({
    state: dataPlane.state,
    decisionLog: dataPlane.decisionLog,
    pool: dataPlane.pool,
    outcomes: telemetry.outcomes,
    spendTokens: dataPlane.spendTokens,
    instanceId: settings.instanceId,
    log,
    env: opts.env,
    ...opts.gateway,
  });
  const fast = createFastPath([
    ...dataPlane.routes,
    ...telemetry.routes,
    ...gateway.routes,
    ...createOpenAiCompatRoutes({ gateway, env: opts.env }),
    ...createAnthropicCompatRoutes({ gateway, env: opts.env }),
    ...createLocalDecisionRoutes({
      state: dataPlane.state,
      decisionLog: dataPlane.decisionLog,
      instanceId: settings.instanceId,
      spendQuota: dataPlane.spendQuota,
      pool: dataPlane.pool,
    }),
    ...createSnapshotFeed({ state: dataPlane.state }).routes,
  ]);
  const server = http.createServer(serverTimeoutsFromEnv(process.env), (req, res) => {
    if (!fast(req, res)) res.writeHead(404).end();
  });
  server.keepAliveTimeout = 65_000;
  server.on("clientError", answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    dataPlane,
    telemetry,
    gateway,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await gateway.close();
      await telemetry.close();
      await dataPlane.close();
    },
  };
}
