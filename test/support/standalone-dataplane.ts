import http from "node:http";
import { createPrisma, type PrismaClient } from "../../lib/db/client";
import { seedDemo } from "../../lib/demo/seed-demo";
import { startDataPlane, type DataPlane, type TDataPlaneOptions } from "../../lib/dataplane/dataplane";
import { answerClientError } from "../../lib/edge/http";
import { createFastPath } from "../../lib/edge/router";
import { serverTimeoutsFromEnv, type TServerTimeouts } from "../../lib/edge/server-timeouts";
import type { TDataPlaneSettings } from "../../lib/dataplane/settings";

export type TStandaloneOptions = {
  databaseUrl: string;
  settings: TDataPlaneSettings;
  seed?: boolean;
  host?: string;
  port?: number;
  embeddedDatabase?: boolean;
  decisionLog?: TDataPlaneOptions["decisionLog"];
  /** Default: from HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS, as server.ts. */
  timeouts?: TServerTimeouts;
  log?: (line: string) => void;
};

export type TStandaloneServer = { url: string; port: number; dataPlane: DataPlane; prisma: PrismaClient; close(): Promise<void> };

/**
 * The data-plane fast path alone on a node:http server, without Next: what the integration
 * tests and `npm run bench:api` drive, so they measure exactly the code server.ts runs for /api/v1.
 */
export async function startStandaloneDataPlane(opts: TStandaloneOptions): Promise<TStandaloneServer> {
  const prisma = createPrisma(opts.databaseUrl);
  if (opts.seed !== false) await seedDemo(prisma);
  const dataPlane = await startDataPlane({
    databaseUrl: opts.databaseUrl,
    prisma,
    version: "standalone",
    embeddedDatabase: opts.embeddedDatabase ?? true,
    settings: opts.settings,
    log: opts.log ?? (() => {}),
    decisionLog: opts.decisionLog,
  });
  const fastPath = createFastPath(dataPlane.routes);
  const server = http.createServer(opts.timeouts ?? serverTimeoutsFromEnv(process.env), (req, res) => {
    if (!fastPath(req, res)) {
      res.writeHead(404).end();
    }
  });
  server.keepAliveTimeout = 65_000;
  server.on("clientError", answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://${opts.host ?? "127.0.0.1"}:${port}`,
    port,
    dataPlane,
    prisma,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await dataPlane.close();
      await prisma.$disconnect();
    },
  };
}
