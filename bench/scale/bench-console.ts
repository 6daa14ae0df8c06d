import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import pg from "pg";
import { createAdmin } from "../../lib/controlplane/users/create-admin";
import { hashPassword } from "../../lib/auth/password";
import { createPrisma } from "../../lib/db/client";
import { quantile, writeBenchResult } from "../lib/bench-results";
import { DEFAULT_SCALE_DATA_DIR, openScaleDatabase } from "./database";
import { SEED_INSTANCE_ID } from "./simulate";
import { freePort } from "../../test/support/free-port";
import { buildIsStale } from "../../lib/runtime/build-freshness";
import { waitForHealth } from "../../test/support/wait-for-health";

// `npm run bench:console [-- --runs 20 --database-url URL | --data-dir DIR]`
// Every console page and every console/control-plane GET route over HTTP, on the production
// server (server.ts, `next start` mode) against the database `npm run seed:scale` filled (≥ 1
// million decisions for issue #7's "no request slower than 500 ms"). Signs in with a password
// (the seeded database is not the demo's embedded one, so there is no one-click demo sign-in):
// a benchmark admin, bench-console@switchyard.local, gets a fresh random password each run and
// is deleted with its sessions when the run ends, succeeds or not.
// Pages and routes are discovered from app/, so new ones are measured without editing this file.
// Writes bench-results/console.json; exits 1 when a request answers 5xx.

const require = createRequire(import.meta.url);
const ROOT = process.cwd();
const TARGET_MS = 500;
const BENCH_EMAIL = "bench-console@switchyard.local";
const HOUR = 3_600_000;

type TTarget = { kind: "page" | "api"; url: string };

/** Route files under app/, as URL templates: route groups dropped, [param] kept. */
function discover(dir: string, file: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const segment = /^\(.*\)$/.test(entry.name) ? "" : `/${entry.name}`;
      out.push(...discover(full, file, prefix + segment));
    } else if (entry.name === file) {
      if (file === "route.ts" && !/export\s+(async\s+function|const)\s+GET\b/.test(readFileSync(full, "utf8"))) continue;
      out.push(prefix || "/");
    }
  }
  return out.sort();
}

function run(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

type TLog = (line: string) => void;
type TFacts = { decisions: number; last: number; ids: { id: string; at: Date }[]; events: { id: string; at: Date }[]; versions: { id: string }[] };
type TRow = { kind: string; url: string; status: number; p50: number; p95: number; max: number };

/** The production build the server runs: rebuilt when stale (the same check as npm start and e2e), never while another build runs. */
function ensureBuild(log: TLog): void {
  // The production build is shared with other tools (npm start, e2e): never build while one builds.
  if (run("pgrep", ["-f", "next build"])) throw new Error("a `next build` is running; run bench:console again when it has finished");
  if (buildIsStale(ROOT)) {
    log("the console build is stale: next build (the same check as npm start and e2e)");
    const built = spawnSync(process.execPath, [require.resolve("next/dist/bin/next"), "build"], {
      stdio: "inherit",
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    if (built.status !== 0) throw new Error("next build failed");
  }
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) throw new Error("no production build in .next");
}

/** The size and age of the seeded log, and real values for the dynamic segments (a decision, a shift event, a version). */
async function readFacts(url: string): Promise<TFacts> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: facts } = await client.query<{ n: string; last: Date | null }>(
      `select (select coalesce(sum(c.reltuples), 0)::bigint from pg_class c join pg_inherits i on i.inhrelid = c.oid where i.inhparent = 'decision'::regclass) as n,
              (select max(created_at) from decision where instance_id = $1) as last`,
      [SEED_INSTANCE_ID],
    );
    const { rows: ids } = await client.query<{ id: string; at: Date }>(
      `select id::text as id, created_at as at from decision tablesample system (0.05) repeatable (11) limit 5`,
    );
    const { rows: events } = await client.query<{ id: string; at: Date }>(
      `select id::text as id, at from shift_event where type <> 'probe_floor_held' order by at desc limit 1`,
    );
    const { rows: versions } = await client.query<{ id: string }>(`select id::text as id from factor_list_version order by created_at limit 1`);
    return { decisions: Number(facts[0]!.n), last: facts[0]!.last?.getTime() ?? Date.now(), ids, events, versions };
  } finally {
    await client.end();
  }
}

/** The benchmark admin with a fresh random password (created, or re-enabled when a previous run left it). */
async function ensureBenchAdmin(prisma: ReturnType<typeof createPrisma>): Promise<string> {
  const password = randomBytes(18).toString("base64url");
  const existing = await prisma.user.findUnique({ where: { email: BENCH_EMAIL } });
  if (existing) await prisma.user.update({ where: { id: existing.id }, data: { passwordHash: await hashPassword(password), disabledAt: null } });
  else await createAdmin(prisma, { email: BENCH_EMAIL, password, name: "bench console" });
  return password;
}

async function signIn(base: string, password: string): Promise<string> {
  const login = await fetch(`${base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ email: BENCH_EMAIL, password }),
  });
  if (login.status !== 200) throw new Error(`sign-in answered ${login.status}: ${await login.text()}`);
  return login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/** Query variants per page: each range and filter the pages offer, on the seeded window. */
function pageVariants(facts: TFacts): Record<string, string[]> {
  const { last, events } = facts;
  const day = new Date(last - 24 * HOUR).toISOString();
  const dayEnd = new Date(last - 18 * HOUR).toISOString();
  const week = new Date(last - 7 * 24 * HOUR).toISOString();
  return {
    "/": ["/?range=24h", "/?range=7d", "/?operation=SEND_EMAIL&region=NA&range=7d"],
    "/why": events[0] ? [`/why?event=${events[0].id}`, `/why?at=${events[0].at.getTime()}`] : [],
    "/decisions": [
      `/decisions?from=${day}&to=${dayEnd}`,
      `/decisions?from=${week}`,
      `/decisions?from=${week}&operation=SEND_EMAIL`,
      `/decisions?from=${week}&region=LATAM`,
      `/decisions?from=${week}&provider=provider_C`,
      `/decisions?from=${week}&reason=share_weighted`,
      `/decisions?from=${week}&policy=v1`,
      `/decisions?from=${week}&outcome=completed`,
      `/decisions?from=${week}&outcome=failed`,
      `/decisions?from=${week}&outcome=pending`,
      `/decisions?from=${week}&stale=true`,
    ],
    // The default operation (the first by key) may have no shadow version: SEND_SMS has one in the seeded data.
    "/shadow": [
      "/shadow?range=24h",
      "/shadow?range=7d",
      "/shadow?operation=SEND_SMS&range=1h",
      "/shadow?operation=SEND_SMS&range=24h",
      "/shadow?operation=SEND_SMS&range=7d",
    ],
    "/api/console/overview": [],
  };
}

/** Every page and console/control/auth GET route discovered under app/, dynamic segments filled with real values. */
function consoleTargets(facts: TFacts): { targets: TTarget[]; skipped: string[] } {
  const { ids, events, versions } = facts;
  const sampleId = ids[0];
  const fill = (template: string): string | null => {
    if (!template.includes("[")) return template;
    if (template === "/decisions/[id]" && sampleId) return `/decisions/${sampleId.id}?at=${sampleId.at.getTime()}`;
    if (template === "/api/console/shift-events/[id]" && events[0]) return `/api/console/shift-events/${events[0].id}`;
    if (template.startsWith("/factor-lists/[id]") && versions[0]) return template.replace("[id]", versions[0].id);
    if (template.startsWith("/api/control/factor-lists/[id]") && versions[0]) return template.replace("[id]", versions[0].id);
    return null;
  };
  const variants = pageVariants(facts);
  const targets: TTarget[] = [];
  const skipped: string[] = [];
  for (const t of discover(path.join(ROOT, "app"), "page.tsx")) {
    if (t === "/login") continue;
    const url = fill(t);
    if (!url) {
      skipped.push(t);
      continue;
    }
    targets.push({ kind: "page", url });
    for (const v of variants[t] ?? []) targets.push({ kind: "page", url: v });
  }
  for (const t of discover(path.join(ROOT, "app"), "route.ts")) {
    if (!t.startsWith("/api/console") && !t.startsWith("/api/control") && !t.startsWith("/api/auth")) continue;
    const url = fill(t);
    if (!url) {
      skipped.push(t);
      continue;
    }
    const withQuery =
      t === "/api/console/overview"
        ? ["/api/console/overview?operation=SEND_SMS&region=EU&range=1h", "/api/console/overview?operation=SEND_SMS&region=EU&range=7d"]
        : [url];
    for (const u of withQuery) targets.push({ kind: "api", url: u });
  }
  return { targets, skipped };
}

/** `runs` timed GETs of each target after 2 warm-ups, printed as they finish. */
async function measureTargets(base: string, cookie: string, targets: readonly TTarget[], runs: number): Promise<TRow[]> {
  const rows: TRow[] = [];
  console.log(`console over HTTP, ${runs} requests each after 2 warm-ups (ms)`);
  for (const t of targets) {
    const ms: number[] = [];
    let status = 0;
    for (let i = 0; i < runs + 2; i++) {
      const started = performance.now();
      const res = await fetch(`${base}${t.url}`, { headers: { cookie }, redirect: "manual" });
      await res.arrayBuffer();
      const took = performance.now() - started;
      if (i >= 2) ms.push(took);
      status = Math.max(status, res.status);
    }
    ms.sort((a, b) => a - b);
    const row = { kind: t.kind, url: t.url, status, p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), max: ms[ms.length - 1]! };
    rows.push(row);
    console.log(
      `${t.kind.padEnd(4)} ${t.url.slice(0, 70).padEnd(70)} ${String(status).padStart(3)} ${row.p50.toFixed(0).padStart(6)} ${row.p95.toFixed(0).padStart(6)} ${row.max.toFixed(0).padStart(6)}${row.max >= TARGET_MS ? "  SLOW" : ""}`,
    );
  }
  return rows;
}

/** Prints the summary and writes bench-results/console.json; 1 when a request answered 5xx. */
function reportConsole(rows: readonly TRow[], skipped: readonly string[], facts: TFacts, runs: number): number {
  for (const s of skipped) console.log(`note: ${s} not measured (no value for its dynamic segment)`);
  const errors = rows.filter((r) => r.status >= 500);
  const slow = rows.filter((r) => r.max >= TARGET_MS);
  const worst = rows.reduce((a, b) => (b.max > a.max ? b : a), rows[0]!);
  console.log(`${rows.length - slow.length} of ${rows.length} with every request under ${TARGET_MS} ms; slowest ${worst.url} (max ${worst.max.toFixed(0)} ms)`);
  const r2 = (v: number) => Math.round(v * 10) / 10;
  writeBenchResult({
    name: "console",
    title: "Console pages and routes over HTTP on a large decision log",
    command: `npm run bench:console -- --runs ${runs}`,
    parameters: {
      decisions: facts.decisions,
      runs,
      targetMs: TARGET_MS,
      dataAgeMinutes: Math.round((Date.now() - facts.last) / 60_000),
      build: "next production build",
    },
    figures: [
      { label: "decisions in the table", value: facts.decisions, unit: "rows" },
      { label: "pages and routes with every request under the target", value: rows.length - slow.length, unit: `of ${rows.length}` },
      { label: "slowest request", value: r2(worst.max), unit: "ms", target: `< ${TARGET_MS}` },
    ],
    tables: [
      {
        title: `GET requests, ${runs} each (ms)`,
        columns: ["kind", "url", "status", "p50", "p95", "max"],
        rows: rows.map((r) => [r.kind, r.url, r.status, r2(r.p50), r2(r.p95), r2(r.max)]),
      },
    ],
    invariants: [
      {
        label: "no 5xx answer",
        ok: errors.length === 0,
        detail: errors.length ? errors.map((e) => `${e.url} → ${e.status}`).join("; ") : `${rows.length} URLs`,
      },
    ],
    notes: skipped.map((s) => `${s}: not measured (no value for its dynamic segment)`),
  });
  return errors.length === 0 ? 0 : 1;
}

/**
 * The benchmark admin exists only for the run: removed at the end, after a failure, and on
 * Ctrl-C or SIGTERM, so a benchmarked database (possibly a real one via --database-url) does
 * not keep an admin account nobody manages. Its sessions go with it (and by the cascade).
 */
function createCleanup(
  prisma: ReturnType<typeof createPrisma>,
  db: { stop(): Promise<void> },
  server: { current: ChildProcess | null },
  log: TLog,
): () => Promise<void> {
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      const child = server.current;
      if (child && child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      try {
        const sessions = await prisma.session.deleteMany({ where: { user: { email: BENCH_EMAIL } } });
        const users = await prisma.user.deleteMany({ where: { email: BENCH_EMAIL } });
        if (users.count > 0) log(`removed ${BENCH_EMAIL} and its ${sessions.count} session(s)`);
      } catch (err) {
        log(`could not remove ${BENCH_EMAIL}: ${(err as Error).message}`);
      }
      await prisma.$disconnect();
      await db.stop();
    })());
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log(`${signal}: cleaning up`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  return cleanup;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "20" },
      "database-url": { type: "string" },
      "data-dir": { type: "string" },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new RangeError(`--runs must be a positive integer, got ${JSON.stringify(values.runs)}`);
  const log = (line: string) => process.stderr.write(`bench:console: ${line}\n`);
  ensureBuild(log);

  const db = await openScaleDatabase({
    databaseUrl: values["database-url"] ?? process.env.DATABASE_URL,
    dataDir: values["data-dir"] ?? DEFAULT_SCALE_DATA_DIR,
    log,
  });
  const server: { current: ChildProcess | null } = { current: null };
  const prisma = createPrisma(db.url);
  const cleanup = createCleanup(prisma, db, server, log);
  try {
    const facts = await readFacts(db.url);
    log(
      `${facts.decisions.toLocaleString("en-US")} decisions (planner estimate); newest ${new Date(facts.last).toISOString()} (${((Date.now() - facts.last) / 60_000).toFixed(0)} min ago)`,
    );
    const password = await ensureBenchAdmin(prisma);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server.current = spawn(process.execPath, [require.resolve("tsx/cli"), "server.ts"], {
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...process.env,
        NODE_ENV: "production",
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: db.url,
        NEXT_TELEMETRY_DISABLED: "1",
        SWITCHYARD_SEED_DEMO: "0",
      },
    });
    await waitForHealth(base, server.current, 180_000, 500);
    log(`server ready at ${base}`);
    const cookie = await signIn(base, password);
    const { targets, skipped } = consoleTargets(facts);
    const rows = await measureTargets(base, cookie, targets, runs);
    return reportConsole(rows, skipped, facts, runs);
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench:console: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
