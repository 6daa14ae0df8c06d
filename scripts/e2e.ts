import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { assertReachable, withDatabase } from "../lib/db/database-url";
import { startThrowawayCluster } from "../test/support/throwaway-cluster";
import { freePort } from "../test/support/free-port";
import { buildIsStale } from "../lib/runtime/build-freshness";
import { createSecretScanner, formatFindings, secretsFromEnv, type TSecret } from "../test/support/secret-scan";
import { waitForHealth } from "../test/support/wait-for-health";

const require = createRequire(import.meta.url);
const log = (line: string) => process.stdout.write(`e2e: ${line}\n`);

async function adminQuery(url: string, sql: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Stored secrets of the run (hashes are secret too: they would allow offline guessing). */
async function storedSecrets(url: string): Promise<TSecret[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const q = async (sql: string, label: string) => (await c.query<{ v: string }>(sql)).rows.map((r) => ({ label, value: r.v }));
    return [
      ...(await q("select password_hash as v from app_user where password_hash is not null", "password hash")),
      ...(await q("select key_hash as v from api_key", "API key hash")),
      ...(await q("select token_hash as v from session", "session token hash")),
    ];
  } finally {
    await c.end();
  }
}

async function main(): Promise<number> {
  const fromEnv = process.env.DATABASE_URL;
  const cluster = fromEnv ? null : await startThrowawayCluster();
  const adminUrl = fromEnv ?? cluster!.adminUrl;
  const host = new URL(adminUrl).hostname;
  if (!["127.0.0.1", "localhost", "::1", "[::1]"].includes(host) && process.env.E2E_ALLOW_REMOTE_DATABASE !== "1") {
    throw new Error(`refusing to run e2e tests against a non-local database (${host}); set E2E_ALLOW_REMOTE_DATABASE=1 to override`);
  }
  await assertReachable(adminUrl);
  const dbName = `sy_e2e_${randomBytes(4).toString("hex")}`;
  await adminQuery(adminUrl, `create database ${pg.escapeIdentifier(dbName)}`);
  const databaseUrl = withDatabase(adminUrl, dbName);
  // The server runs outside demo mode here (it is given a DATABASE_URL), so the data plane
  // needs a key; the specs send the same one.
  const apiKey = process.env.SWITCHYARD_API_KEY ?? `e2e-${randomBytes(12).toString("hex")}`;
  // Credentials resolve only inside the secrets namespace (lib/gateway/secret-namespace.ts):
  // specs write key files here, and the gateway spec's key is bound to its loopback mock.
  const secretsDir = mkdtempSync(path.join(tmpdir(), "sy-e2e-secrets-"));
  let server: ChildProcess | null = null;
  try {
    if (buildIsStale(process.cwd())) {
      log("building the console");
      const built = spawnSync(process.execPath, [require.resolve("next/dist/bin/next"), "build"], {
        stdio: "inherit",
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      });
      if (built.status !== 0) throw new Error("next build failed");
    }
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [require.resolve("tsx/cli"), "server.ts"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        NODE_ENV: "production",
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: databaseUrl,
        SWITCHYARD_API_KEY: apiKey,
        SWITCHYARD_SEED_DEMO: "1",
        // The gateway spec's provider is a mock on loopback, which provider calls may reach only when allowed.
        SWITCHYARD_ALLOW_LOOPBACK_PROVIDERS: "1",
        SWITCHYARD_SECRETS_DIR: secretsDir,
        SWITCHYARD_CREDENTIAL_HOSTS: `file:${secretsDir}/openai-key=127.0.0.1`,
        // The notifications spec takes a receiver down for 60 s: a 10 s retry cap shows its recovery within seconds, not minutes.
        NOTIFY_BACKOFF_CAP_MS: "10000",
        NEXT_TELEMETRY_DISABLED: "1",
      },
    });
    // Everything the server logs is scanned for secrets at the end of the run.
    const serverLog: { source: string; text: string }[] = [];
    server.stdout!.on("data", (b: Buffer) => {
      process.stdout.write(b);
      serverLog.push({ source: "server stdout", text: b.toString("utf8") });
    });
    server.stderr!.on("data", (b: Buffer) => {
      process.stderr.write(b);
      serverLog.push({ source: "server stderr", text: b.toString("utf8") });
    });
    await waitForHealth(base, server, 120_000);
    log(`server ready at ${base}`);
    const run = spawnSync(process.execPath, [require.resolve("@playwright/test/cli"), "test", "-c", "e2e/playwright.config.ts", ...process.argv.slice(2)], {
      stdio: "inherit",
      env: { ...process.env, E2E_BASE_URL: base, E2E_DATABASE_URL: databaseUrl, SWITCHYARD_API_KEY: apiKey, E2E_SECRETS_DIR: secretsDir },
    });
    const scanner = createSecretScanner([
      ...secretsFromEnv({ ...process.env, SWITCHYARD_API_KEY: apiKey }),
      { label: "e2e account password", value: `pw-${apiKey.slice(-20)}` },
      ...(await storedSecrets(databaseUrl)),
    ]);
    for (const chunk of serverLog) scanner.feed(chunk.source, chunk.text);
    const findings = scanner.findings();
    const { secrets, scannedChars } = scanner.stats();
    log(`secret scan: ${secrets} secrets, ${scannedChars} characters of server output, ${findings.length} found`);
    if (findings.length > 0) {
      process.stderr.write(`e2e: secrets appeared in the server's output:\n${formatFindings(findings)}\n`);
      return 1;
    }
    return run.status ?? 1;
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once("exit", r));
      server.kill("SIGTERM");
      await exited;
    }
    await adminQuery(adminUrl, `drop database if exists ${pg.escapeIdentifier(dbName)} with (force)`).catch(() => {});
    await cluster?.stop();
    rmSync(secretsDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`e2e: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
