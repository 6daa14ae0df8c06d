import { adminDatabaseUrl } from "../../test/support/database";
import { mkdtemp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createScratchDatabase, type TScratchDatabase } from "./drift";
import {
  applyMigrations,
  DatabaseConnectionError,
  DEFAULT_MIGRATIONS_DIR,
  MigrationError,
  migrationChecksum,
  migrationStatus,
  readMigrations,
  splitStatements,
} from "./migrate";
import { diagnoseMigrationHistory } from "./schema-engine";

const SERVER_URL = adminDatabaseUrl();

let db: TScratchDatabase;
let client: pg.Client;
const tempDirs: string[] = [];

async function migrationsDir(migrations: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "switchyard-migrations-"));
  tempDirs.push(dir);
  for (const [name, sql] of Object.entries(migrations)) {
    await mkdir(path.join(dir, name));
    await writeFile(path.join(dir, name, "migration.sql"), sql);
  }
  return dir;
}

async function tables(): Promise<string[]> {
  const { rows } = await client.query<{ table_name: string }>(
    "select table_name from information_schema.tables where table_schema = 'public' order by table_name",
  );
  return rows.map((r) => r.table_name);
}

async function recorded(): Promise<{ migration_name: string; checksum: string; applied_steps_count: number; finished: boolean }[]> {
  const { rows } = await client.query(
    'select migration_name, checksum, applied_steps_count, finished_at is not null as finished from "_prisma_migrations" order by started_at',
  );
  return rows;
}

beforeAll(async () => {
  db = await createScratchDatabase(SERVER_URL, "switchyard_test_migrate");
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});

beforeEach(async () => {
  await client.query("drop schema public cascade; create schema public");
});

afterAll(async () => {
  await client?.end();
  await db?.drop();
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("applyMigrations", () => {
  it("applies the repository's migrations once; a second run is a no-op", async () => {
    const names = (await readMigrations()).map((m) => m.name);
    expect(names.length).toBeGreaterThan(0);

    expect(await applyMigrations(db.url)).toEqual({ applied: names });
    expect(await tables()).toEqual(expect.arrayContaining(["_prisma_migrations", "operation", "provider"]));
    const rowsAfterFirst = await recorded();

    expect(await applyMigrations(db.url)).toEqual({ applied: [] });
    expect(await recorded()).toEqual(rowsAfterFirst);
  });

  it("records what `prisma migrate deploy` records, so Prisma's engine sees nothing pending", async () => {
    await applyMigrations(db.url);
    const migrations = await readMigrations();
    const rows = await recorded();
    expect(rows).toEqual(
      await Promise.all(
        migrations.map(async (m) => ({
          migration_name: m.name,
          checksum: migrationChecksum(await readFile(path.join(DEFAULT_MIGRATIONS_DIR, m.name, "migration.sql"), "utf8")),
          applied_steps_count: 1,
          finished: true,
        })),
      ),
    );
    const history = await diagnoseMigrationHistory(db.url, "prisma/schema.prisma", DEFAULT_MIGRATIONS_DIR, migrations);
    expect(history).toEqual({ unapplied: [], failed: [], edited: [], hasMigrationsTable: true });
  });

  it("a failing migration leaves the database as it was and names the folder, statement and Postgres error", async () => {
    const dir = await migrationsDir({
      "20240101000000_first": 'CREATE TABLE "first" (id int);',
      "20240102000000_broken": 'CREATE TABLE "second" (id int);\n-- the next one fails\nINSERT INTO "missing" (id) VALUES (1);\nCREATE TABLE "third" (id int);',
    });

    const error = await applyMigrations(db.url, { migrationsDir: dir }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(MigrationError);
    const err = error as MigrationError;
    expect(err.migration).toBe("20240102000000_broken");
    expect(err.statement).toContain('INSERT INTO "missing"');
    expect(err.message).toContain("20240102000000_broken");
    expect(err.message).toContain('INSERT INTO "missing" (id) VALUES (1)');
    expect(err.message).toContain('relation "missing" does not exist');
    expect(err.message).toContain("statement 2 of 3");
    // The earlier migration committed on its own; nothing of the broken one remains.
    expect(await tables()).toEqual(["_prisma_migrations", "first"]);
    expect((await recorded()).map((r) => r.migration_name)).toEqual(["20240101000000_first"]);

    await writeFile(path.join(dir, "20240102000000_broken", "migration.sql"), 'CREATE TABLE "second" (id int);');
    expect(await applyMigrations(db.url, { migrationsDir: dir })).toEqual({ applied: ["20240102000000_broken"] });
  });

  it("runs statements whose bodies contain semicolons (which the engine's adapter splits apart)", async () => {
    const dir = await migrationsDir({
      "20240101000000_function": `CREATE TABLE "t" (note text DEFAULT 'a;b');
CREATE FUNCTION touch() RETURNS trigger AS $body$
BEGIN
  NEW.note := 'x;y';
  RETURN NEW;
END;
$body$ LANGUAGE plpgsql;
CREATE TRIGGER t_touch BEFORE INSERT ON "t" FOR EACH ROW EXECUTE FUNCTION touch();`,
    });
    await applyMigrations(db.url, { migrationsDir: dir });
    await client.query('insert into "t" default values');
    expect((await client.query('select note from "t"')).rows).toEqual([{ note: "x;y" }]);
  });

  it("refuses migrations that manage their own transaction", async () => {
    const dir = await migrationsDir({ "20240101000000_tx": 'BEGIN;\nCREATE TABLE "x" (id int);\nCOMMIT;' });
    await expect(applyMigrations(db.url, { migrationsDir: dir })).rejects.toThrow(/20240101000000_tx.*already runs in its own transaction/);
    expect(await tables()).toEqual(["_prisma_migrations"]);
  });

  it("refuses to continue past a migration Prisma recorded as failed", async () => {
    const dir = await migrationsDir({ "20240101000000_a": 'CREATE TABLE "a" (id int);' });
    await applyMigrations(db.url, { migrationsDir: await migrationsDir({}) });
    await client.query(`insert into "_prisma_migrations" (id, checksum, migration_name) values ('x', 'y', '20240101000000_a')`);
    await expect(applyMigrations(db.url, { migrationsDir: dir })).rejects.toThrow(/20240101000000_a as failed/);
  });

  it("an unreachable database is one line naming the host and the cause", async () => {
    const error = await applyMigrations("postgresql://root@127.0.0.1:1/nowhere").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseConnectionError);
    expect((error as Error).message).toMatch(/^cannot connect to 127\.0\.0\.1:1\/nowhere: [^\n]*refused[^\n]*$/);
  });
});

describe("migrationStatus", () => {
  it("reports everything pending before the migrations table exists, then applied and pending", async () => {
    const one = { "20240101000000_a": 'CREATE TABLE "a" (id int);' };
    const two = { ...one, "20240102000000_b": 'CREATE TABLE "b" (id int);' };
    const dirOne = await migrationsDir(one);
    const dirTwo = await migrationsDir(two);

    expect(await migrationStatus(db.url, { migrationsDir: dirTwo })).toEqual({ applied: [], pending: Object.keys(two), failed: [] });
    await applyMigrations(db.url, { migrationsDir: dirOne });
    expect(await migrationStatus(db.url, { migrationsDir: dirTwo })).toEqual({
      applied: ["20240101000000_a"],
      pending: ["20240102000000_b"],
      failed: [],
    });
    // The health check passes the connection it already has.
    expect(await migrationStatus(client, { migrationsDir: dirOne })).toEqual({ applied: ["20240101000000_a"], pending: [], failed: [] });
  });
});

describe("splitStatements", () => {
  it("splits on top-level semicolons only", () => {
    const script = `-- header; with a semicolon
CREATE TABLE "a;b" (x text DEFAULT 'it''s; fine');
/* block; /* nested; */ comment */
SELECT E'back\\'slash;', $$ a; b $$, $tag$ c; $$ d; $tag$;
-- trailing comment only;
`;
    expect(splitStatements(script)).toEqual([
      `-- header; with a semicolon\nCREATE TABLE "a;b" (x text DEFAULT 'it''s; fine')`,
      `/* block; /* nested; */ comment */\nSELECT E'back\\'slash;', $$ a; b $$, $tag$ c; $$ d; $tag$`,
    ]);
  });
});
