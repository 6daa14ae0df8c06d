import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { withDatabase } from "../../lib/db/database-url";
import { startThrowawayCluster } from "../../test/support/throwaway-cluster";
import { freePort } from "../../test/support/free-port";
import { buildIsStale } from "../../lib/runtime/build-freshness";
import { waitForHealth } from "../../test/support/wait-for-health";
import { auditEntryHash } from "../../lib/audit/hash";
import { applyMigrations } from "../../lib/db/migrate";
import { createPrisma } from "../../lib/db/client";
import { seedDemo, seedLlmChat } from "../../lib/demo/seed-demo";
import { writeBenchResult } from "../lib/bench-results";
import { ATTACKS, type TProbeContext, type TProbeRole } from "./probe/attacks";
import { request } from "./probe/http";
import { attackerHostEnv, startAttackerHost, type TAttackerHost } from "./probe/attacker-host";

const HELP = `npm run security:probe [-- options]

Starts Switchyard in production mode (the database from DATABASE_URL, else a throwaway
embedded cluster; a fresh database either way; admin from the environment; a data-plane key)
and runs two attack reviews' findings against it as attacks: the first review's items 1-17, and
the trust-boundary review's items 35.1-35.8 (secrets, keys, tenancy, outbound calls),
printing attack → expected → observed. Exits 1 on any hole. Writes
bench-results/security-probe.json for BENCHMARKS.md.

  --only N[,N]   run only these items (e.g. 4,35.3)
  --no-write     do not write bench-results/security-probe.json
  --help         this text
`;

const require = createRequire(import.meta.url);
const log = (line: string) => process.stdout.write(`security-probe: ${line}\n`);

const { values } = parseArgs({
  options: { only: { type: "string" }, "no-write": { type: "boolean", default: false }, help: { type: "boolean", default: false } },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const only = values.only ? new Set(values.only.split(",").map((s) => s.trim())) : null;

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

function cookieFrom(headers: Record<string, string | string[] | undefined>): string {
  const raw = headers["set-cookie"];
  const first = (Array.isArray(raw) ? raw : [raw ?? ""]).find((c) => c.startsWith("sy_session=")) ?? "";
  return first.split(";")[0] ?? "";
}

type TEmails = Record<TProbeRole, string>;
type TProbeRow = { item: number | string; attack: string; expected: string; observed: string; ok: boolean };
type TProbeEnv = NodeJS.ProcessEnv;

const EMAILS: TEmails = {
  admin: "probe-admin@probe.test",
  admin2: "probe-admin2@probe.test",
  policy_author: "probe-author@probe.test",
  on_call: "probe-oncall@probe.test",
  approver: "probe-approver@probe.test",
  compliance: "probe-compliance@probe.test",
};

/**
 * Migrations, then the demo catalogue (SEND_SMS over provider_A, B and C) and LLM_CHAT's rows: a
 * production start has no operation, and these stand in for the operator's own (item 10 needs a
 * job queued by execute mode; the outbound attacks give provider_A an adapter).
 */
async function prepareDatabase(databaseUrl: string, env: TProbeEnv): Promise<void> {
  if (buildIsStale(process.cwd())) {
    log("building the console");
    const built = spawnSync(process.execPath, [require.resolve("next/dist/bin/next"), "build"], { stdio: "inherit", env });
    if (built.status !== 0) throw new Error("next build failed");
  }
  await applyMigrations(databaseUrl);
  const prisma = createPrisma(databaseUrl);
  try {
    // The SMS catalogue first: the server's own demo seed skips a database that already has operations.
    await seedDemo(prisma);
    await seedLlmChat(prisma);
  } finally {
    await prisma.$disconnect();
  }
}

/** server.ts in production mode with the probe's admin and data-plane key; its output is kept for the leak checks. */
async function startProbeServer(
  env: TProbeEnv,
  apiKey: string,
  password: string,
  output: string[],
): Promise<{ server: ChildProcess; base: string; port: number }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, [require.resolve("tsx/cli"), "server.ts"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      SWITCHYARD_SEED_DEMO: "1",
      SWITCHYARD_API_KEY: apiKey,
      SWITCHYARD_ADMIN_EMAIL: EMAILS.admin,
      SWITCHYARD_ADMIN_PASSWORD: password,
    },
  });
  server.stdout!.on("data", (b: Buffer) => output.push(b.toString("utf8")));
  server.stderr!.on("data", (b: Buffer) => output.push(b.toString("utf8")));
  await waitForHealth(base, server, 120_000);
  return { server, base, port };
}

/** Session cookies per role, signing in on first use. */
function cookieJar(base: string, password: string): (role: TProbeRole) => Promise<string> {
  const cookies = new Map<TProbeRole, string>();
  return async (role) => {
    const known = cookies.get(role);
    if (known) return known;
    const a = await request(base, "/api/auth/login", {
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify({ email: EMAILS[role], password }),
    });
    if (a.status !== 200) throw new Error(`sign-in as ${role}: ${a.status} ${a.body.slice(0, 200)}`);
    const cookie = cookieFrom(a.headers);
    cookies.set(role, cookie);
    return cookie;
  };
}

/** One account per role, then a second admin (with one admin, grants apply at once and are marked so); their ids by role. */
async function createAccounts(
  base: string,
  databaseUrl: string,
  password: string,
  cookieOf: (role: TProbeRole) => Promise<string>,
): Promise<Record<TProbeRole, string>> {
  for (const role of ["policy_author", "on_call", "approver", "compliance", "admin2"] as const) {
    const a = await request(base, "/api/control/users", {
      headers: { "content-type": "application/json", origin: base, cookie: await cookieOf("admin") },
      body: JSON.stringify({ email: EMAILS[role], name: `Probe ${role}`, password, roles: [role === "admin2" ? "admin" : role] }),
    });
    if (a.status !== 201) throw new Error(`creating ${role}: ${a.status} ${a.body.slice(0, 200)}`);
  }
  const ids = {} as Record<TProbeRole, string>;
  await withClient(databaseUrl, async (c) => {
    for (const row of (await c.query<{ id: string; email: string }>("select id, email from app_user")).rows) {
      const role = (Object.keys(EMAILS) as TProbeRole[]).find((r) => EMAILS[r] === row.email);
      if (role) ids[role] = row.id;
    }
  });
  return ids;
}

function verifyAudit(env: TProbeEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [require.resolve("tsx/cli"), "scripts/audit-verify.ts"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (b: Buffer) => (text += b.toString()));
    child.stderr.on("data", (b: Buffer) => (text += b.toString()));
    child.on("exit", (code) => resolve({ code: code ?? 1, output: text }));
  });
}

/** The attacker owns the database: triggers are off for this session, and the hashes from `seq` on are recomputed over a changed actor. */
function rewriteAuditChain(databaseUrl: string, seq: number): Promise<void> {
  return withClient(databaseUrl, async (c) => {
    await c.query("set session_replication_role = replica");
    const rows = (await c.query("select * from audit_entry where seq >= $1 order by seq", [seq])).rows as Record<string, unknown>[];
    let prevHash = String(rows[0]?.prev_hash ?? "");
    for (const [i, row] of rows.entries()) {
      const fields = {
        seq: Number(row.seq),
        at: row.at as Date,
        actorId: (row.actor_id as string | null) ?? null,
        actor: i === 0 ? "someone-else@probe.test" : String(row.actor),
        action: String(row.action),
        targetType: String(row.target_type),
        targetId: (row.target_id as string | null) ?? null,
        before: row.before ?? null,
        after: row.after ?? null,
        reason: (row.reason as string | null) ?? null,
        ip: (row.ip as string | null) ?? null,
        prevHash,
      };
      const hash = auditEntryHash(fields);
      await c.query("update audit_entry set actor = $2, prev_hash = $3, hash = $4 where seq = $1", [fields.seq, fields.actor, prevHash, hash]);
      prevHash = hash;
    }
  });
}

function deleteAuditTail(databaseUrl: string, n: number): Promise<string> {
  return withClient(databaseUrl, async (c) => {
    try {
      const r = await c.query("delete from audit_entry where seq in (select seq from audit_entry order by seq desc limit $1)", [n]);
      return `deleted ${r.rowCount} rows`;
    } catch (err) {
      return `refused: ${(err as Error).message}`;
    }
  });
}

async function runAttacks(ctx: TProbeContext): Promise<TProbeRow[]> {
  const rows: TProbeRow[] = [];
  for (const attack of ATTACKS) {
    if (only && !only.has(String(attack.item))) continue;
    let observed: string;
    let ok: boolean;
    try {
      ({ observed, ok } = await attack.run(ctx));
    } catch (err) {
      observed = `probe error: ${(err as Error).message}`;
      ok = false;
    }
    rows.push({ item: attack.item, attack: attack.attack, expected: attack.expected, observed, ok });
    log(`${ok ? "held" : "HOLE"}  #${attack.item} ${attack.attack} → ${observed}`);
  }
  return rows;
}

/** The table of attacks, and bench-results/security-probe.json unless --no-write or --only; 1 on any hole. */
function reportProbe(rows: readonly TProbeRow[], output: readonly string[], fromEnv: boolean): number {
  const fivexx = (output.join("").match(/unexpected error/g) ?? []).length;
  const holes = rows.filter((r) => !r.ok).length;
  process.stdout.write(`\n| # | attack | expected | observed | |\n| --- | --- | --- | --- | --- |\n`);
  for (const r of rows) process.stdout.write(`| ${r.item} | ${r.attack} | ${r.expected} | ${r.observed} | ${r.ok ? "held" : "HOLE"} |\n`);
  process.stdout.write(`\n${rows.length - holes}/${rows.length} held; server logged ${fivexx} unexpected errors\n`);
  if (!values["no-write"] && !only) {
    const file = writeBenchResult({
      name: "security-probe",
      title: "Security probe: the attack review's findings as attacks",
      command: "npm run security:probe",
      parameters: { attacks: rows.length, database: fromEnv ? "DATABASE_URL" : "throwaway embedded cluster" },
      figures: [
        { label: "attacks held", value: rows.length - holes, unit: "count", target: `= ${rows.length}` },
        { label: "holes", value: holes, unit: "count", target: "= 0" },
      ],
      tables: [
        {
          title: "attack → expected → observed",
          columns: ["#", "attack", "expected", "observed", "held"],
          rows: rows.map((r) => [r.item, r.attack, r.expected, r.observed, r.ok]),
        },
      ],
      invariants: [{ label: "every attack held", ok: holes === 0 }],
    });
    log(`wrote ${file}`);
  }
  return holes === 0 ? 0 : 1;
}

async function main(): Promise<number> {
  const fromEnv = process.env.DATABASE_URL;
  const cluster = fromEnv ? null : await startThrowawayCluster();
  const adminUrl = fromEnv ?? cluster!.adminUrl;
  const dbName = `sy_probe_${randomBytes(4).toString("hex")}`;
  await withClient(adminUrl, (c) => c.query(`create database ${pg.escapeIdentifier(dbName)}`));
  const databaseUrl = withDatabase(adminUrl, dbName);
  const apiKey = `probe-${randomBytes(16).toString("hex")}`;
  const auditKey = randomBytes(32).toString("hex");
  const password = `pw-${randomBytes(12).toString("hex")}`;
  // The audit checkpoints go where audit:verify (item 7) looks for them, outside the checkout's .data/.
  const checkpointDir = await mkdtemp(path.join(tmpdir(), "sy-probe-audit-"));
  // Started before the server, which trusts its CA and may reach its one address (attacker-host.ts).
  const attacker: TAttackerHost = await startAttackerHost();
  const env = {
    ...process.env,
    ...attackerHostEnv(attacker),
    DATABASE_URL: databaseUrl,
    SWITCHYARD_AUDIT_KEY: auditKey,
    SWITCHYARD_AUDIT_CHECKPOINT_DIR: checkpointDir,
    NEXT_TELEMETRY_DISABLED: "1",
  };
  let server: ChildProcess | null = null;
  const output: string[] = [];
  try {
    await prepareDatabase(databaseUrl, env);
    const started = await startProbeServer(env, apiKey, password, output);
    server = started.server;
    const { base, port } = started;
    log(`production-mode server on ${base}, database ${dbName}`);
    const cookieOf = cookieJar(base, password);
    const ids = await createAccounts(base, databaseUrl, password, cookieOf);
    // Signed in before any attack: the sign-in throttle (item 4) must not stop the probe's own accounts.
    for (const role of Object.keys(EMAILS) as TProbeRole[]) await cookieOf(role);
    const ctx: TProbeContext = {
      base,
      port,
      apiKey,
      attacker,
      cookieOf,
      users: Object.fromEntries((Object.keys(EMAILS) as TProbeRole[]).map((r) => [r, { email: EMAILS[r], password, id: ids[r] }])) as TProbeContext["users"],
      serverOutput: () => output.join(""),
      verifyAudit: () => verifyAudit(env),
      rewriteAuditChain: (seq) => rewriteAuditChain(databaseUrl, seq),
      deleteAuditTail: (n) => deleteAuditTail(databaseUrl, n),
    };
    return reportProbe(await runAttacks(ctx), output, Boolean(fromEnv));
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once("exit", r));
      server.kill("SIGTERM");
      await exited;
    }
    await withClient(adminUrl, (c) => c.query(`drop database if exists ${pg.escapeIdentifier(dbName)} with (force)`)).catch(() => {});
    await cluster?.stop();
    await rm(checkpointDir, { recursive: true, force: true });
    await attacker.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`security-probe: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
