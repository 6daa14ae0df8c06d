import pg from "pg";
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { applyMigrations } from "../../lib/db/migrate";
import { withDatabase } from "../../lib/db/database-url";

export type TTestDatabase = { url: string; name: string; drop(): Promise<void> };

export function adminDatabaseUrl(): string {
  return inject("adminDatabaseUrl");
}

/** A fresh, migrated database of its own for one test file, on the suite's real server. */
export async function createTestDatabase(opts: { migrate?: boolean } = {}): Promise<TTestDatabase> {
  const admin = adminDatabaseUrl();
  const name = `sy_test_${randomBytes(5).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`create database ${pg.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const url = withDatabase(admin, name);
  if (opts.migrate !== false) await applyMigrations(url);
  return {
    url,
    name,
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        await c.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
