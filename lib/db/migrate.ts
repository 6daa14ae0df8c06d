import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { describeConnectionError } from "./connection-error";

/**
 * Applies prisma/migrations the way `prisma migrate deploy` does and records them in the same
 * `_prisma_migrations` rows, so either tool can take over from the other. We apply them
 * ourselves rather than through the schema engine because, under adapter-pg, the engine
 * splits each script on every ";" (breaking function bodies and string literals) and runs the
 * pieces outside a transaction, so a failure half-way leaves half a migration behind. Here
 * each migration and its bookkeeping row commit together or not at all.
 */

export const DEFAULT_MIGRATIONS_DIR = path.join(process.cwd(), "prisma", "migrations");

/** Prisma's migration lock: `pg_advisory_lock(72707369)` in prisma-engines' Postgres connector. */
const PRISMA_ADVISORY_LOCK = 72707369;

/** The table exactly as prisma-engines creates it, so `prisma migrate deploy` reads it as its own. */
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export type TMigration = { name: string; sql: string; checksum: string };

export type TMigrationStatus = { applied: string[]; pending: string[]; failed: string[] };

/** A minimal query surface, so the health check can reuse a pool it already has. */
export type TQueryable = { query(sql: string): Promise<{ rows: unknown[] }> };

export type TMigrateOptions = { migrationsDir?: string };

export class MigrationError extends Error {
  constructor(
    readonly migration: string,
    readonly statement: string | null,
    readonly postgresMessage: string,
    detail: string,
  ) {
    super(detail);
    this.name = "MigrationError";
  }
}

export class DatabaseConnectionError extends Error {
  override name = "DatabaseConnectionError";
}

/** Prisma's checksum: sha256 of the migration.sql bytes, lowercase hex. */
export function migrationChecksum(sql: string): string {
  return createHash("sha256").update(sql, "utf8").digest("hex");
}

/** Migration folder names in the order Prisma applies them (lexicographic, like its timestamps). */
async function listMigrationNames(migrationsDir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(migrationsDir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

export async function readMigrations(migrationsDir: string = DEFAULT_MIGRATIONS_DIR): Promise<TMigration[]> {
  const names = await listMigrationNames(migrationsDir);
  return Promise.all(
    names.map(async (name) => {
      const file = path.join(migrationsDir, name, "migration.sql");
      const sql = await readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
        throw new Error(err.code === "ENOENT" ? `migration folder ${name} has no migration.sql` : `cannot read ${file}: ${err.message}`);
      });
      return { name, sql, checksum: migrationChecksum(sql) };
    }),
  );
}

/**
 * Splits a script into statements on top-level semicolons, skipping those inside quotes,
 * quoted identifiers, dollar-quoted bodies and comments. Statements keep their comments.
 */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  const n = script.length;
  const push = (end: number) => {
    const text = script.slice(start, end).trim();
    if (stripComments(text).trim()) statements.push(text);
  };
  while (i < n) {
    const ch = script[i];
    const next = script[i + 1];
    if (ch === "-" && next === "-") {
      const eol = script.indexOf("\n", i);
      i = eol === -1 ? n : eol + 1;
    } else if (ch === "/" && next === "*") {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        const pair = script.slice(i, i + 2);
        if (pair === "/*" || pair === "*/") {
          depth += pair === "/*" ? 1 : -1;
          i += 2;
        } else i++;
      }
    } else if (ch === "'" || ch === '"') {
      // E'...' strings allow backslash escapes; everywhere else a doubled quote is the escape.
      const backslashes = ch === "'" && i > 0 && /[eE]/.test(script[i - 1] ?? "") && !/[\w$]/.test(script[i - 2] ?? "");
      i++;
      while (i < n) {
        if (backslashes && script[i] === "\\") i += 2;
        else if (script[i] === ch && script[i + 1] === ch) i += 2;
        else if (script[i] === ch) break;
        else i++;
      }
      i++;
    } else if (ch === "$" && !/[\w$]/.test(script[i - 1] ?? "")) {
      const tag = /^\$([A-Za-z_][\w]*)?\$/.exec(script.slice(i));
      if (tag) {
        const close = script.indexOf(tag[0], i + tag[0].length);
        i = close === -1 ? n : close + tag[0].length;
      } else i++;
    } else if (ch === ";") {
      push(i);
      start = ++i;
    } else i++;
  }
  push(n);
  return statements;
}

function stripComments(statement: string): string {
  return statement.replace(/--[^\n]*/g, "").replace(/\/\*[\s\S]*?\*\//g, "");
}

const TRANSACTION_CONTROL = /^(BEGIN|COMMIT|ROLLBACK|END|START\s+TRANSACTION|ABORT)\b/i;

async function connect(databaseUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 });
  // A dropped connection mid-migration surfaces through the failing query; without a
  // listener it would also crash the process as an unhandled 'error' event.
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    throw new DatabaseConnectionError(describeConnectionError(databaseUrl, err));
  }
  return client;
}

type TRecordedRow = { migration_name: string; finished_at: Date | null; rolled_back_at: Date | null };

function summarise(rows: TRecordedRow[]): { applied: Set<string>; failed: Set<string> } {
  const applied = new Set<string>();
  const failed = new Set<string>();
  for (const row of rows) {
    if (row.rolled_back_at) continue;
    if (row.finished_at) applied.add(row.migration_name);
    else failed.add(row.migration_name);
  }
  for (const name of applied) failed.delete(name);
  return { applied, failed };
}

const SELECT_RECORDED = `SELECT migration_name, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`;

function oneLine(sql: string, max = 200): string {
  const flat = stripComments(sql).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function postgresMessage(err: unknown): string {
  const e = err as { message?: string; code?: string; detail?: string; hint?: string };
  const parts = [`${e.message ?? String(err)}${e.code ? ` (SQLSTATE ${e.code})` : ""}`];
  if (e.detail) parts.push(`detail: ${e.detail}`);
  if (e.hint) parts.push(`hint: ${e.hint}`);
  return parts.join("; ");
}

async function applyOne(client: pg.Client, migration: TMigration): Promise<void> {
  const statements = splitStatements(migration.sql);
  const control = statements.find((s) => TRANSACTION_CONTROL.test(stripComments(s).trim()));
  if (control) {
    throw new MigrationError(
      migration.name,
      control,
      "",
      `Migration ${migration.name} contains "${oneLine(control)}": each migration already runs in its own transaction, so remove transaction control from migration.sql. Nothing was applied.`,
    );
  }
  await client.query("BEGIN");
  try {
    const id = randomUUID();
    await client.query(`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)`, [
      id,
      migration.checksum,
      migration.name,
    ]);
    for (const [index, statement] of statements.entries()) {
      try {
        await client.query(statement);
      } catch (err) {
        const message = postgresMessage(err);
        throw new MigrationError(
          migration.name,
          statement,
          message,
          `Migration ${migration.name} failed at statement ${index + 1} of ${statements.length}; the database was left unchanged.\n` +
            `  statement: ${oneLine(statement)}\n` +
            `  postgres:  ${message}`,
        );
      }
    }
    // Prisma counts a whole migration.sql as one step and stamps finished_at when it is done.
    await client.query(`UPDATE "_prisma_migrations" SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1`, [id]);
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  }
}

/**
 * Applies every migration in the folder that the database has not recorded, oldest first,
 * each in its own transaction together with its `_prisma_migrations` row. Stops at the first
 * failure with a MigrationError naming the folder, the statement and Postgres's message.
 */
export async function applyMigrations(databaseUrl: string, options: TMigrateOptions = {}): Promise<{ applied: string[] }> {
  const migrations = await readMigrations(options.migrationsDir);
  const client = await connect(databaseUrl);
  try {
    // Serialises with other instances starting at the same time and with `prisma migrate deploy`.
    await client.query(`SELECT pg_advisory_lock(${PRISMA_ADVISORY_LOCK})`);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const { rows } = await client.query<TRecordedRow>(SELECT_RECORDED);
    const recorded = summarise(rows);
    const failed = [...recorded.failed];
    if (failed.length > 0) {
      throw new MigrationError(
        failed[0] ?? "",
        null,
        "",
        `_prisma_migrations records ${failed.join(", ")} as failed (started but never finished), which this runner never leaves behind: ` +
          `inspect the database, then mark it with \`prisma migrate resolve --rolled-back <name>\` (or --applied) before migrating again.`,
      );
    }
    const applied: string[] = [];
    for (const migration of migrations) {
      if (recorded.applied.has(migration.name)) continue;
      await applyOne(client, migration);
      applied.push(migration.name);
    }
    return { applied };
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Which migrations the database has applied and which are still pending. One query plus a
 * directory listing, cheap enough for a health check; a database without the table yet has
 * everything pending.
 */
export async function migrationStatus(database: string | TQueryable, options: TMigrateOptions = {}): Promise<TMigrationStatus> {
  const names = await listMigrationNames(options.migrationsDir ?? DEFAULT_MIGRATIONS_DIR);
  const client = typeof database === "string" ? await connect(database) : null;
  const queryable: TQueryable = client ?? (database as TQueryable);
  let rows: TRecordedRow[];
  try {
    rows = (await queryable.query(SELECT_RECORDED)).rows as TRecordedRow[];
  } catch (err) {
    if ((err as { code?: string }).code !== "42P01") throw err;
    rows = [];
  } finally {
    await client?.end().catch(() => {});
  }
  const recorded = summarise(rows);
  return {
    applied: names.filter((n) => recorded.applied.has(n)),
    pending: names.filter((n) => !recorded.applied.has(n)),
    failed: [...recorded.failed],
  };
}

/** What a CLI prints for an error: our own errors are already one clear message; no stack traces. */
export function formatCliError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
