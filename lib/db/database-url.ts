import pg from "pg";
import path from "node:path";
import { startEmbeddedPostgres } from "./embedded";
import { describeConnectionError } from "./connection-error";

export type TResolvedDatabase = {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
};

export class DatabaseUnavailableError extends Error {}

/** Connects once, so a wrong URL fails at start-up with one clear line instead of later. */
export async function assertReachable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query("select 1");
  } catch (err) {
    throw new DatabaseUnavailableError(describeConnectionError(url, err));
  } finally {
    await client.end().catch(() => {});
  }
}

export async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (found.rowCount === 0) await client.query(`create database ${pg.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * DATABASE_URL when set; otherwise the embedded cluster under `.data/` (started here, or
 * shared with the Switchyard process that already runs it).
 */
export async function resolveDatabaseUrl(
  opts: { dataDir?: string; port?: number; database?: string; log?: (line: string) => void } = {},
): Promise<TResolvedDatabase> {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) {
    await assertReachable(fromEnv);
    return { url: fromEnv, embedded: false, stop: async () => {} };
  }
  const cluster = await startEmbeddedPostgres({
    dataDir: opts.dataDir ?? path.resolve(process.cwd(), ".data", "postgres"),
    port: opts.port ?? Number(process.env.EMBEDDED_PG_PORT ?? 54329),
    log: opts.log,
  });
  try {
    const url = await ensureDatabase(cluster.adminUrl, opts.database ?? "switchyard");
    return { url, embedded: true, stop: () => cluster.stop() };
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}

/** The same server URL pointing at database `name`. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
