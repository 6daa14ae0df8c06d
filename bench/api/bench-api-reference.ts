import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import http from "node:http";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { announcePort, exitWithError, startServerChild, stopChild } from "../lib/child-process";

/**
 * bench:api's reference: the yardstick for decide, "a bare node:http handler with a
 * group-committed batch insert into Postgres", run on the same machine, database and load as the
 * decide phase. Each POST's body is parsed and inserted as a row of a table of its own (id,
 * created_at, body); the answer leaves once the row is committed. Rows queued while a batch is in
 * flight go in the next one (up to three transactions at a time, like the decision log), so the
 * reference is the floor for a durable answer on this machine as it is during the run: comparing
 * decide with it separates what Switchyard costs from how fast the machine happens to be.
 */
const TABLE = "bench_reference";
const MAX_IN_FLIGHT = 3;

async function serve(databaseUrl: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: MAX_IN_FLIGHT });
  await pool.query(`create table if not exists ${TABLE} (id uuid primary key, created_at timestamptz not null, body jsonb not null)`);
  type TPending = { id: string; at: string; body: string; done: (err: Error | null) => void };
  let queue: TPending[] = [];
  let inFlight = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    while (queue.length > 0 && inFlight < MAX_IN_FLIGHT) {
      const batch = queue;
      queue = [];
      inFlight++;
      pool
        .query(`insert into ${TABLE} (id, created_at, body) select * from unnest($1::uuid[], $2::timestamptz[], $3::jsonb[])`, [
          batch.map((p) => p.id),
          batch.map((p) => p.at),
          batch.map((p) => p.body),
        ])
        .then(
          () => batch.forEach((p) => p.done(null)),
          (err: Error) => batch.forEach((p) => p.done(err)),
        )
        .finally(() => {
          inFlight--;
          if (queue.length > 0) flush();
        });
    }
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: string;
      try {
        body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        res.writeHead(400, { "content-type": "application/json" }).end('{"error":"invalid JSON"}');
        return;
      }
      const id = randomUUID();
      queue.push({
        id,
        at: new Date().toISOString(),
        body,
        done: (err) => {
          const text = err ? JSON.stringify({ error: err.message }) : `{"id":"${id}"}`;
          res.writeHead(err ? 503 : 200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
        },
      });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
  });
  server.keepAliveTimeout = 65_000;
  // An exit rather than death by the signal, so node writes a --cpu-prof profile.
  process.once("SIGTERM", () => process.exit(0));
  await announcePort(server);
}

/**
 * Starts the reference server in a process of its own (`nodeArgs`: node's flags for it, such as
 * profile-pair.ts's --cpu-prof); `stop` ends it and drops its table.
 */
export async function startReferenceServer(
  databaseUrl: string,
  nodeArgs: readonly string[] = [],
): Promise<{ child: ChildProcess; port: number; stop(): Promise<void> }> {
  const { child, port } = await startServerChild(fileURLToPath(import.meta.url), ["--reference-server", databaseUrl], "the reference server", nodeArgs);
  const stop = async () => {
    await stopChild(child);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(`drop table if exists ${TABLE}`);
    } finally {
      await client.end();
    }
  };
  return { child, port, stop };
}

/**
 * After the reference's load, before decide's: vacuum what it wrote and checkpoint, so decide
 * does not run beside the autovacuum and the buffer writes its hundreds of thousands of rows set
 * off (they took CPU and WAL flushes from decide's phase, which comes second). The checkpoint is
 * skipped where the role may not run one.
 */
export async function settleAfterReference(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`vacuum (analyze) ${TABLE}`);
    await client.query("checkpoint").catch((err: { code?: string }) => {
      if (err.code !== "42501") throw err;
    });
  } finally {
    await client.end();
  }
}

const flag = process.argv.indexOf("--reference-server");
if (flag !== -1) serve(process.argv[flag + 1]!).catch(exitWithError);
