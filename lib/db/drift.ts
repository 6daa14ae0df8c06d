import { randomBytes } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { applyMigrations, DatabaseConnectionError, DEFAULT_MIGRATIONS_DIR } from "./migrate";
import { describeConnectionError } from "./connection-error";
import { diffDatabaseToSchema } from "./schema-engine";

export const DEFAULT_SCHEMA_PATH = path.join(process.cwd(), "prisma", "schema.prisma");

export type TScratchDatabase = { url: string; name: string; drop(): Promise<void> };

export type TSchemaSources = { migrationsDir?: string; schemaPath?: string };

async function withAdminClient<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 });
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    throw new DatabaseConnectionError(describeConnectionError(serverUrl, err));
  }
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Creates an empty database next to the one `serverUrl` points at (same server and
 * credentials; the role needs CREATEDB) and returns its URL and a drop function.
 */
export async function createScratchDatabase(serverUrl: string, prefix = "switchyard_scratch"): Promise<TScratchDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  await withAdminClient(serverUrl, (client) => client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => withAdminClient(serverUrl, async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`))),
  };
}

export async function withScratchDatabase<T>(serverUrl: string, fn: (url: string) => Promise<T>): Promise<T> {
  const scratch = await createScratchDatabase(serverUrl);
  try {
    return await fn(scratch.url);
  } finally {
    await scratch.drop();
  }
}

/**
 * The SQL a new migration needs so that the migrations folder produces the Prisma schema:
 * applies every migration to a scratch database on the server `serverUrl` points at, then
 * diffs that database against the schema. Null when the migrations already produce it.
 */
export async function diffMigrationsToSchema(serverUrl: string, sources: TSchemaSources = {}): Promise<string | null> {
  return withScratchDatabase(serverUrl, async (url) => {
    await applyMigrations(url, { migrationsDir: sources.migrationsDir ?? DEFAULT_MIGRATIONS_DIR });
    return diffDatabaseToSchema(url, sources.schemaPath ?? DEFAULT_SCHEMA_PATH);
  });
}

/**
 * Drift check: do all migrations, applied to an empty database, give exactly the schema?
 * `sql` is what would have to be added to the migrations to close the gap.
 */
export async function checkDrift(serverUrl: string, sources: TSchemaSources = {}): Promise<{ inSync: boolean; sql: string }> {
  const sql = await diffMigrationsToSchema(serverUrl, sources);
  return { inSync: sql === null, sql: sql ?? "" };
}
