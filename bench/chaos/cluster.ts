import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import path from "node:path";
import { startEmbeddedPostgres, type TEmbeddedDatabase } from "../../lib/db/embedded";
import { freePort } from "../../test/support/free-port";
import { removeAbandoned } from "../../test/support/throwaway-cluster";

export type TStoppableCluster = {
  /** Connection URL of the `postgres` maintenance database; stays valid across stop/start. */
  readonly adminUrl: string;
  readonly running: boolean;
  /** Fast shutdown (SIGINT to the postmaster): sessions end, new connections are refused. */
  stop(): Promise<void>;
  /** Starts the same cluster again, data and port unchanged. */
  start(): Promise<void>;
  /** Stops it if running and deletes its data. */
  destroy(): Promise<void>;
};

/**
 * A PostgreSQL cluster of its own that a fault scenario may stop and start again. Unlike the
 * test suite's throwaway cluster it keeps its data across a stop (persistent, with its password
 * and port stored beside it), so the outage is a real server going away and coming back; destroy()
 * removes it. Clusters of runs that died before destroy() are removed by the next run.
 */
export async function startStoppableCluster(): Promise<TStoppableCluster> {
  const root = path.resolve(".data", "chaos-clusters");
  removeAbandoned(root);
  const requested = path.join(root, `${process.pid}-${randomBytes(3).toString("hex")}`);
  const port = await freePort();
  let db: TEmbeddedDatabase | null = await startEmbeddedPostgres({ dataDir: requested, port });
  const adminUrl = db.adminUrl;
  // As root the data may live elsewhere (the postgres user must reach it): remember where.
  const dataDir = db.dataDir;
  let destroyed = false;
  return {
    adminUrl,
    get running() {
      return db !== null;
    },
    async stop() {
      const d = db;
      db = null;
      await d?.stop();
    },
    async start() {
      if (db || destroyed) return;
      db = await startEmbeddedPostgres({ dataDir: requested, port });
    },
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      const d = db;
      db = null;
      await d?.stop();
      for (const p of [dataDir, `${dataDir}.json`, requested, `${requested}.json`]) rmSync(p, { recursive: true, force: true });
    },
  };
}
