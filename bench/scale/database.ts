import path from "node:path";
import pg from "pg";
import { assertReachable, ensureDatabase } from "../../lib/db/database-url";
import { startEmbeddedPostgres } from "../../lib/db/embedded";
import { freePort } from "../../test/support/free-port";

export type TScaleDatabase = { url: string; embedded: boolean; dataDir: string | null; stop(): Promise<void> };

/** Where the scale seed keeps its own cluster unless told otherwise: beside the demo's, never inside it. */
export const DEFAULT_SCALE_DATA_DIR = path.join(process.cwd(), ".data", "scale", "postgres");

/**
 * Settings for a cluster holding millions of decisions. The embedded defaults (128 MB shared
 * buffers, 1 GB of WAL between checkpoints) suit the demo; a week of a busy log wants a buffer
 * pool that holds the hot indexes and checkpoints that do not fire every few seconds during the
 * bulk load. Applied with ALTER SYSTEM, so only on the seed's own embedded cluster.
 */
const TUNING: Record<string, string> = {
  shared_buffers: "2GB",
  effective_cache_size: "8GB",
  max_wal_size: "16GB",
  checkpoint_timeout: "30min",
  maintenance_work_mem: "512MB",
  work_mem: "32MB",
  random_page_cost: "1.1",
};

/** Applies TUNING; true when shared_buffers changed, which takes a restart. */
async function tune(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const before = (await c.query<{ v: string }>("select pg_size_bytes(current_setting('shared_buffers')) as v")).rows[0]!.v;
    for (const [name, value] of Object.entries(TUNING)) await c.query(`alter system set ${pg.escapeIdentifier(name)} = ${pg.escapeLiteral(value)}`);
    await c.query("select pg_reload_conf()");
    const wanted = (await c.query<{ v: string }>("select pg_size_bytes($1) as v", [TUNING.shared_buffers])).rows[0]!.v;
    return before !== wanted;
  } finally {
    await c.end();
  }
}

/**
 * The database the scale seed and benchmark use: `databaseUrl` when given (used as is, no
 * tuning), else an embedded cluster in `dataDir`, started here, tuned once, and stopped by stop().
 */
export async function openScaleDatabase(opts: { databaseUrl?: string; dataDir?: string; log?: (line: string) => void }): Promise<TScaleDatabase> {
  if (opts.databaseUrl) {
    await assertReachable(opts.databaseUrl);
    return { url: opts.databaseUrl, embedded: false, dataDir: null, stop: async () => {} };
  }
  const dataDir = path.resolve(opts.dataDir ?? DEFAULT_SCALE_DATA_DIR);
  const start = async () => startEmbeddedPostgres({ dataDir, port: await freePort() });
  let cluster = await start();
  if (cluster.owned && (await tune(cluster.adminUrl))) {
    opts.log?.("restarting the embedded cluster with the scale settings (shared_buffers)");
    await cluster.stop();
    cluster = await start();
  }
  try {
    const url = await ensureDatabase(cluster.adminUrl, "switchyard");
    return { url, embedded: true, dataDir: cluster.dataDir, stop: () => cluster.stop() };
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}
