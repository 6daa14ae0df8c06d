import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory, ColumnTypeEnum, type SqlQueryable } from "@prisma/driver-adapter-utils";
import * as glue from "@prisma/schema-engine-wasm/schema_engine_bg";
import type { MigrationList, SchemaEngine } from "@prisma/schema-engine-wasm/schema_engine_bg";

/**
 * Everything that touches Prisma's schema engine. We run the published WebAssembly build
 * (the CLI's native engine is downloaded on first use, which these machines cannot do) with
 * adapter-pg underneath. Callers get plain functions over database URLs and files; nothing
 * outside this module sees the engine.
 */

export type TMigrationHistory = {
  /** Migrations in the folder the database has not recorded as applied. */
  unapplied: string[];
  /** Recorded as started but neither finished nor rolled back (`prisma migrate deploy` refuses these). */
  failed: string[];
  /** Applied, but the file's checksum no longer matches the recorded one. */
  edited: string[];
  hasMigrationsTable: boolean;
};

const NO_FILTERS = { externalTables: [], externalEnums: [] };

let loaded: Promise<void> | undefined;

/**
 * The engine's panic hook writes the Rust panic message to this global before trapping;
 * without it a panic becomes an unrelated TypeError. We keep the message to report it.
 */
const panics = {
  message: "",
  set_message(message: string) {
    this.message = message;
  },
};

/**
 * The package's ESM entry does `import * as wasm from "./schema_engine_bg.wasm"`, which
 * Node 20 refuses. Its wasm-bindgen glue (schema_engine_bg.js) only needs the instance's
 * exports handed to `__wbg_set_wasm` and `__wbindgen_start()` called once, and the module's
 * only import namespace is that same glue file, so we instantiate the bytes ourselves.
 */
function loadEngineModule(): Promise<void> {
  loaded ??= (async () => {
    (globalThis as { PRISMA_WASM_PANIC_REGISTRY?: typeof panics }).PRISMA_WASM_PANIC_REGISTRY = panics;
    const require = createRequire(import.meta.url);
    // The .wasm is not in the package's exports map; it sits next to the exported glue file.
    const gluePath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
    const bytes = await readFile(path.join(path.dirname(gluePath), "schema_engine_bg.wasm"));
    const { instance } = await WebAssembly.instantiate(bytes, {
      "./schema_engine_bg.js": glue as unknown as WebAssembly.ModuleImports,
    });
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
  })();
  return loaded;
}

/** OID of Postgres's internal one-byte `"char"` type (pg_class.relkind, pg_constraint.contype). */
const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

/** Which result columns were `"char"`, keyed by the rows array pg returns and adapter-pg passes on. */
const charColumnsByRows = new WeakMap<object, number[]>();

function relabelCharColumns<T>(result: T): T {
  const res = result as { fields?: { dataTypeID: number }[]; rows?: object } | undefined;
  const charColumns: number[] = [];
  res?.fields?.forEach((field, index) => {
    if (field.dataTypeID !== PG_CHAR_OID) return;
    field.dataTypeID = PG_TEXT_OID;
    charColumns.push(index);
  });
  if (charColumns.length > 0 && res?.rows) charColumnsByRows.set(res.rows, charColumns);
  return result;
}

/**
 * adapter-pg 7.10 rejects columns of type `"char"` ("Unsupported column type char"), and the
 * engine's catalog queries return several, so describing any Postgres database fails. This
 * client relabels them as text so the adapter accepts the result (pg already hands the
 * values over as strings) and remembers which columns they were, so that `typeCharColumns`
 * can report them to the engine as characters: PostgreSQL 18's NOT NULL constraint rows
 * make the engine read `contype` as a char, and it panics on text.
 */
class CatalogFriendlyClient extends pg.Client {
  // pg's overloads cannot be restated in a subclass; both call styles are forwarded as is.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const last: unknown = args[args.length - 1];
    if (typeof last === "function") {
      args[args.length - 1] = (err: unknown, res: unknown) => last(err, err ? res : relabelCharColumns(res));
    }
    const ret: unknown = (super.query as (...a: unknown[]) => unknown)(...args);
    return ret instanceof Promise ? ret.then(relabelCharColumns) : ret;
  }
}

function typeCharColumns<Q extends SqlQueryable>(queryable: Q): Q {
  const queryRaw = queryable.queryRaw.bind(queryable);
  queryable.queryRaw = async (query) => {
    const result = await queryRaw(query);
    for (const index of charColumnsByRows.get(result.rows) ?? []) result.columnTypes[index] = ColumnTypeEnum.Character;
    return result;
  };
  return queryable;
}

function createAdapter(databaseUrl: string) {
  const factory = new PrismaPg({ connectionString: databaseUrl, max: 2, Client: CatalogFriendlyClient as unknown as new () => pg.ClientBase });
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = typeCharColumns(await connect());
    const startTransaction = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (isolationLevel) => typeCharColumns(await startTransaction(isolationLevel));
    return adapter;
  };
  // adapter-pg 7.10's shadow database connects to the main database and drops the shadow
  // before closing its pool. We never need one: drift and new migrations are computed on
  // scratch databases we create ourselves, so make any accidental use fail loudly.
  factory.connectToShadowDb = () => {
    throw new Error("shadow databases are not used here: apply migrations to a scratch database instead");
  };
  return bindMigrationAwareSqlAdapterFactory(factory);
}

/** Engine errors carry a Rust span trace after the message; the first lines are what people need. */
function cleanEngineError(err: unknown): Error {
  if (err instanceof WebAssembly.RuntimeError && panics.message) {
    const message = `schema engine panicked: ${panics.message}`;
    panics.message = "";
    return new Error(message);
  }
  const message = err instanceof Error ? err.message : String(err);
  const lines = message.split("\n");
  const traceStart = lines.findIndex((line) => /^\s+\d+: /.test(line));
  return new Error(`schema engine: ${(traceStart === -1 ? lines : lines.slice(0, traceStart)).join("\n").trim()}`);
}

let crashed: string | undefined;

/**
 * A Rust panic traps inside an engine callback, so it surfaces as an uncaught
 * WebAssembly.RuntimeError rather than as a rejection of the call that caused it. While a
 * call runs we turn that into its rejection; the instance is unusable afterwards.
 */
function rejectOnPanic(): { panicked: Promise<never>; dispose(): void } {
  let reject: (err: Error) => void = () => {};
  const panicked = new Promise<never>((_, rej) => (reject = rej));
  panicked.catch(() => {});
  const listener = (err: Error) => {
    if (err instanceof WebAssembly.RuntimeError) {
      const clean = cleanEngineError(err);
      crashed = clean.message;
      reject(clean);
      return;
    }
    // Not ours: keep Node's default of crashing unless someone else handles it.
    if (process.listenerCount("uncaughtException") === 1) throw err;
  };
  process.on("uncaughtException", listener);
  return { panicked, dispose: () => void process.off("uncaughtException", listener) };
}

async function withEngine<T>(
  databaseUrl: string,
  schemaPath: string,
  fn: (engine: SchemaEngine, schema: { path: string; content: string }) => Promise<T>,
): Promise<T> {
  if (crashed) throw new Error(`${crashed} (earlier in this process; restart it)`);
  await loadEngineModule();
  const schema = { path: schemaPath, content: await readFile(schemaPath, "utf8") };
  const guard = rejectOnPanic();
  let engine: SchemaEngine | undefined;
  try {
    const run = async () => {
      engine = await glue.SchemaEngine.new({ datamodels: [[schema.path, schema.content]] }, () => {}, createAdapter(databaseUrl));
      return fn(engine, schema);
    };
    return await Promise.race([run(), guard.panicked]);
  } catch (err) {
    throw err instanceof Error && err.message.startsWith("schema engine") ? err : cleanEngineError(err);
  } finally {
    guard.dispose();
    if (!crashed) engine?.free();
  }
}

/**
 * The SQL that takes the live database at `databaseUrl` to the Prisma schema, in the form
 * `prisma migrate dev` writes into migration.sql; null when they already match. Prisma's own
 * `_prisma_migrations` table is not part of the comparison.
 */
export async function diffDatabaseToSchema(databaseUrl: string, schemaPath: string): Promise<string | null> {
  return withEngine(databaseUrl, schemaPath, async (engine, schema) => {
    const result = await engine.diff({
      from: { tag: "schemaDatasource", files: [schema], configDir: path.dirname(schemaPath) },
      to: { tag: "schemaDatamodel", files: [schema] },
      script: true,
      exitCode: true,
      filters: NO_FILTERS,
    });
    return result.exitCode === 0 ? null : (result.stdout ?? "");
  });
}

export type TMigrationFile = { name: string; sql: string };

function toMigrationList(migrationsDir: string, migrations: TMigrationFile[], lockfile: string | null): MigrationList {
  return {
    baseDir: migrationsDir,
    lockfile: { path: "migration_lock.toml", content: lockfile },
    shadowDbInitScript: "",
    migrationDirectories: migrations.map((m) => ({
      path: m.name,
      migrationFile: { path: "migration.sql", content: { tag: "ok", value: m.sql } },
    })),
  };
}

/**
 * How Prisma's own engine sees the database's migration history, the check
 * `prisma migrate deploy` makes before applying anything. Read-only.
 */
export async function diagnoseMigrationHistory(
  databaseUrl: string,
  schemaPath: string,
  migrationsDir: string,
  migrations: TMigrationFile[],
): Promise<TMigrationHistory> {
  const lockfile = await readFile(path.join(migrationsDir, "migration_lock.toml"), "utf8").catch(() => null);
  return withEngine(databaseUrl, schemaPath, async (engine) => {
    const out = await engine.diagnoseMigrationHistory({
      migrationsList: toMigrationList(migrationsDir, migrations, lockfile),
      optInToShadowDatabase: false,
      filters: NO_FILTERS,
    });
    const history = out.history;
    const unapplied = history && history.diagnostic !== "migrationsDirectoryIsBehind" ? history.unappliedMigrationNames : [];
    return { unapplied, failed: out.failedMigrationNames, edited: out.editedMigrationNames, hasMigrationsTable: out.hasMigrationsTable };
  });
}

export async function schemaEngineVersion(): Promise<string> {
  await loadEngineModule();
  return glue.version();
}
