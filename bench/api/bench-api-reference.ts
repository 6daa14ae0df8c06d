import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { uuidV7At } from "../../lib/dataplane/decision-id";
import { startRollupRoller } from "../../lib/dataplane/decision-log/roller";
import type { TDecisionRow } from "../../lib/dataplane/decision-log/rows";
import { createDecisionLog } from "../../lib/dataplane/decision-log/writer";
import { dataPlaneSettings } from "../../lib/dataplane/settings";
import { createSpool } from "../../lib/dataplane/spool";
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

/** Both bare handlers' reading: the POST's body as JSON to `then`, or a 400. */
function onJsonBody(req: http.IncomingMessage, res: http.ServerResponse, then: (body: unknown) => void): void {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end('{"error":"invalid JSON"}');
      return;
    }
    then(body);
  });
}

/** Both bare handlers' answer once their row is committed (`ok`), or 503 with why not. */
function answerCommitted(res: http.ServerResponse, ok: string, err: Error | null): void {
  const text = err ? JSON.stringify({ error: err.message }) : ok;
  res.writeHead(err ? 503 : 200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
}

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
  const server = http.createServer((req, res) =>
    onJsonBody(req, res, (body) => {
      const id = randomUUID();
      queue.push({ id, at: new Date().toISOString(), body: JSON.stringify(body), done: (err) => answerCommitted(res, `{"id":"${id}"}`, err) });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    }),
  );
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

/**
 * The second yardstick: the same bare handler, writing instead the row decide writes, through the
 * product's own decision log (lib/dataplane/decision-log: its group commit with the data plane's
 * settings, the insert function with its idempotency probe, indexes, stored record and pending
 * rollup cells, and the roller). Every column but the id, time, region and requestId comes from
 * the newest row decide wrote (`instance`'s rows are left out), so the row is decide's to the
 * byte. Between the reference and decide, it separates what the decision row costs from what the
 * rest of decide costs; its rows carry instance id ROW_REFERENCE_INSTANCE.
 */
export const ROW_REFERENCE_INSTANCE = "bench-row-reference";

/** The columns of decide's row the copies keep, as node-pg reads them. */
type TTemplateRow = {
  operation: string;
  policy_version: string | null;
  shadow_version: string | null;
  selected_provider: string | null;
  reason_code: string;
  shadow_pick: string | null;
  shadow_agrees: boolean | null;
  score_margin: number | null;
  stale: boolean;
  metric_age_ms: number | null;
  fallback_action: string | null;
  api_key_id: string | null;
  offered_providers: string | null;
  candidates_id: string;
  record_text: string;
  list_json: string;
};

async function serveDecisionRows(databaseUrl: string): Promise<void> {
  const settings = dataPlaneSettings(process.env, process.cwd());
  const pool = new pg.Pool({ connectionString: databaseUrl, max: settings.logConcurrency + 3 });
  const t = (
    await pool.query<TTemplateRow>(
      `select d.operation, d.policy_version, d.shadow_version, d.selected_provider, d.reason_code, d.shadow_pick, d.shadow_agrees,
              d.score_margin, d.stale, d.metric_age_ms, d.fallback_action, d.api_key_id, d.offered_providers, d.candidates_id,
              d.record::text as record_text, c.body::text as list_json
         from decision d join decision_candidates c on c.id = d.candidates_id and c.day = (d.created_at at time zone 'UTC')::date
        where d.instance_id <> $1 and d.source = 'server' order by d.created_at desc limit 1`,
      [ROW_REFERENCE_INSTANCE],
    )
  ).rows[0];
  if (!t) throw new Error("the row reference needs a decision decide wrote, with its candidate list, to copy");
  const spoolDir = mkdtempSync(path.join(os.tmpdir(), "bench-row-reference-"));
  const log = (line: string) => process.stderr.write(`row reference: ${line}\n`);
  const decisionLog = createDecisionLog({
    pool,
    spool: createSpool<TDecisionRow>({ dir: spoolDir, name: "decisions", maxBytes: settings.spoolMaxBytes }),
    durability: "sync",
    maxBuffered: settings.maxBuffered,
    concurrency: settings.logConcurrency,
    maxBatch: settings.logMaxBatch,
    lingerMs: settings.logLingerMs,
    partitions: { daysAhead: settings.partitionDaysAhead, retentionDays: settings.retentionDays },
    backlog: { announce: async () => {}, withdraw: async () => {} },
    log,
  });
  startRollupRoller({ pool, log });
  const stored = { text: t.record_text, list: { id: t.candidates_id, json: t.list_json } };
  const server = http.createServer((req, res) =>
    onJsonBody(req, res, (parsed) => {
      const body = parsed as { region: string; requestId: string };
      const now = Date.now();
      const id = uuidV7At(now);
      const row: TDecisionRow = {
        id,
        createdAt: now,
        operation: t.operation,
        region: body.region,
        requestId: body.requestId,
        policyVersion: t.policy_version,
        shadowVersion: t.shadow_version,
        selectedProvider: t.selected_provider,
        reasonCode: t.reason_code,
        shadowPick: t.shadow_pick,
        shadowAgrees: t.shadow_agrees,
        scoreMargin: t.score_margin,
        stale: t.stale,
        metricAgeMs: t.metric_age_ms,
        fallbackAction: t.fallback_action,
        degraded: false,
        body: "",
        durability: "sync",
        instanceId: ROW_REFERENCE_INSTANCE,
        apiKeyId: t.api_key_id,
        offeredProviders: t.offered_providers,
        source: "server",
      };
      const ok = `{"decisionId":"${id}"}`;
      decisionLog.submit(row, stored).then(
        () => answerCommitted(res, ok, null),
        (err: Error) => answerCommitted(res, ok, err),
      );
    }),
  );
  server.keepAliveTimeout = 65_000;
  process.once("SIGTERM", () => {
    rmSync(spoolDir, { recursive: true, force: true });
    process.exit(0);
  });
  await announcePort(server);
}

/** Starts the row reference (above) in a process of its own, once decide has written a row it can copy. */
export async function startRowReferenceServer(databaseUrl: string): Promise<{ child: ChildProcess; port: number; stop(): Promise<void> }> {
  const { child, port } = await startServerChild(fileURLToPath(import.meta.url), ["--row-reference-server", databaseUrl], "the row reference server");
  return { child, port, stop: () => stopChild(child) };
}

const flag = process.argv.indexOf("--reference-server");
if (flag !== -1) serve(process.argv[flag + 1]!).catch(exitWithError);
const rowFlag = process.argv.indexOf("--row-reference-server");
if (rowFlag !== -1) serveDecisionRows(process.argv[rowFlag + 1]!).catch(exitWithError);
