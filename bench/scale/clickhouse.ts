import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createClient, ClickHouseLogLevel, type ClickHouseClient } from "@clickhouse/client";
import type { TDecisionRow } from "../../lib/dataplane/decision-log/rows";
import type { TPendingOutcome } from "../../lib/dataplane/telemetry/outcomes";
import type { TOutcomeErrorClass } from "../../lib/dataplane/telemetry/schemas";
import { decisionStoreSettings } from "../../lib/decision-store/settings";
import { createClickHouseOutcomes } from "../../lib/decision-store/clickhouse/outcomes";
import { batchToken, clickHouseRow, DECISION_COLUMNS } from "../../lib/decision-store/clickhouse/rows";
import { ensureClickHouseSchema } from "../../lib/decision-store/clickhouse/schema";
import type { TCompactDecision, TDecisionTemplate } from "./decision-insert";
import type { TBusinessOutcomeRow, TCallOutcomeRow } from "./simulate";

/**
 * The scale seed and benchmark in ClickHouse mode (SWITCHYARD_DECISION_STORE=clickhouse): decisions
 * and outcomes in ClickHouse, everything else in Postgres. There is no ClickHouse server on this
 * machine, so the engine is chdb behind the tests' HTTP shim in a child process of its own
 * (clickhouse-server.ts): the product's @clickhouse/client, schema and queries talk to it over
 * loopback as to a server, and its parsing and merging do not share the seed's or the
 * benchmark's event loop.
 */
export const DEFAULT_SCALE_CH_DIR = path.join(process.cwd(), ".data", "scale-ch");

export type TScaleClickHouse = { url: string; client: ClickHouseClient; pid: number; close(): Promise<void> };

const SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), "clickhouse-server.ts");

/**
 * Starts the embedded engine on `<dir>/chdb` in a child process and creates the product's tables
 * there (its own schema.ts, default retention tiers). close() ends the child, which closes the
 * engine; the child also ends when this process does (its stdin closes).
 */
export async function openScaleClickHouse(dir: string = DEFAULT_SCALE_CH_DIR): Promise<TScaleClickHouse> {
  const data = path.resolve(dir, "chdb");
  mkdirSync(data, { recursive: true });
  const child = spawn(process.execPath, ["--import", "tsx", SERVER, data], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", (line) => resolve((JSON.parse(line) as { url: string }).url));
    void exited.then((code) => reject(new Error(`the ClickHouse process exited with ${code} before listening`)));
  });
  // Long timeouts: a 100,000-row insert or OPTIMIZE … FINAL over a week is no decide-path request.
  const client = createClient({ url, request_timeout: 3_600_000, log: { level: ClickHouseLogLevel.OFF } });
  const close = async () => {
    await client.close();
    child.stdin.end();
    await exited;
  };
  try {
    const settings = decisionStoreSettings({ SWITCHYARD_DECISION_STORE: "clickhouse", SWITCHYARD_CLICKHOUSE_URL: url });
    if (settings.kind !== "clickhouse") throw new Error("unreachable: ClickHouse settings expected");
    await ensureClickHouseSchema(client, settings);
  } catch (err) {
    await close();
    throw err;
  }
  return { url, client, pid: child.pid!, close };
}

/** Rows of the decision and outcome tables; with `reset`, empties both first. */
export async function emptyClickHouseTables(client: ClickHouseClient, reset: boolean | undefined, log: (line: string) => void): Promise<void> {
  const rs = await client.query({ query: "SELECT (SELECT count() FROM decision) + (SELECT count() FROM outcome) AS n", format: "JSONEachRow" });
  const [held] = await rs.json<{ n: string }>();
  if (Number(held?.n ?? 0) === 0) return;
  if (!reset) throw new Error("ClickHouse's decision or outcome table already holds rows: pass --reset to empty them first");
  log("emptying ClickHouse's decision and outcome tables");
  await client.command({ query: "TRUNCATE TABLE decision" });
  await client.command({ query: "TRUNCATE TABLE outcome" });
}

/** A simulated row as the decision log's TDecisionRow: the template's columns, the record assembled around the row's values as the Postgres seed does in SQL. */
export function decisionRowsOf(templates: readonly TDecisionTemplate[], decisions: readonly TCompactDecision[]): TDecisionRow[] {
  const byKey = new Map(templates.map((t) => [t.key, t]));
  return decisions.map((d) => {
    const t = byKey.get(d.template);
    if (!t) throw new Error(`decision ${d.id}: template ${d.template} is not in its chunk`);
    const [p0, p1, p2, p3, p4] = t.parts;
    return { ...t.fields, id: d.id, createdAt: d.at, requestId: d.requestId, body: `${p0}${d.id}${p1}${d.id}${p2}${d.at}${p3}${d.requestId}${p4}` };
  });
}

/** The simulated outcomes as the outcome service hands them to its store (TPendingOutcome), so the store's own conversion writes them. */
function pendingOutcomes(calls: readonly TCallOutcomeRow[], business: readonly TBusinessOutcomeRow[]): TPendingOutcome[] {
  const out: TPendingOutcome[] = [];
  for (const c of calls) {
    out.push({
      id: c.outcomeId,
      receivedAt: c.reportedAt,
      decision: { operation: c.operation, region: c.region, selected: c.provider },
      applied: true,
      outcome: {
        type: "provider_call",
        decisionId: c.decisionId,
        provider: c.provider,
        status: c.ok ? "success" : "failure",
        ...(c.errorClass ? { errorClass: c.errorClass as TOutcomeErrorClass } : {}),
        httpStatus: c.httpStatus,
        latencyMs: c.latencyMs,
        retryCount: c.retryCount,
      },
    });
  }
  for (const b of business) {
    out.push({
      id: b.outcomeId,
      receivedAt: b.reportedAt,
      decision: { operation: b.operation, region: b.region, selected: b.provider },
      applied: true,
      outcome: {
        type: "business",
        decisionId: b.decisionId,
        completed: b.completed,
        ...(b.failureStage ? { failureStage: b.failureStage } : {}),
        withinSla: b.withinSla,
        ...(b.provider ? { provider: b.provider } : {}),
      },
    });
  }
  return out;
}

/**
 * The seed's writer into ClickHouse: decisions and outcomes are buffered and inserted `batch`
 * decisions at a time (one insert per table, the log store's columns, format and settings), one
 * insert in flight while the next buffer fills. The seed adds the rows' rollup cells to Postgres
 * with the log store's rollupDeltasOf and addRollupDeltas; there is no claim log (the seed has no
 * idempotency keys).
 */
export function createClickHouseSink(client: ClickHouseClient, batch: number) {
  const outcomes = createClickHouseOutcomes(client);
  let rows: unknown[][] = [];
  let tokens: { id: string }[] = [];
  let pending: TPendingOutcome[] = [];
  let inFlight: Promise<void> | null = null;
  let failure: unknown = null;

  async function insert(values: unknown[][], ids: { id: string }[], out: TPendingOutcome[]): Promise<void> {
    await client.insert({
      table: "decision",
      values,
      columns: [...DECISION_COLUMNS],
      format: "JSONCompactEachRow",
      clickhouse_settings: { async_insert: 0, insert_deduplicate: 1, insert_deduplication_token: batchToken(ids) },
    });
    await outcomes.insert(out);
  }

  async function flush(): Promise<void> {
    if (inFlight) await inFlight;
    if (failure !== null) throw failure;
    if (rows.length === 0 && pending.length === 0) return;
    const [v, ids, out] = [rows, tokens, pending];
    rows = [];
    tokens = [];
    pending = [];
    inFlight = insert(v, ids, out)
      .catch((err: unknown) => {
        failure ??= err;
      })
      .finally(() => {
        inFlight = null;
      });
  }

  return {
    /** Buffers a chunk's rows; once the buffer holds `batch` decisions it goes out (after the insert in flight, if any). */
    async add(decisions: readonly TDecisionRow[], calls: readonly TCallOutcomeRow[], business: readonly TBusinessOutcomeRow[]) {
      for (const d of decisions) {
        rows.push(clickHouseRow(d));
        tokens.push({ id: d.id });
      }
      pending.push(...pendingOutcomes(calls, business));
      if (rows.length >= batch) await flush();
    },
    /** Sends what is buffered and waits for every insert; rethrows the first failure. */
    async finish(): Promise<void> {
      await flush();
      if (inFlight) await inFlight;
      if (failure !== null) throw failure;
    },
  };
}

export type TClickHouseSink = ReturnType<typeof createClickHouseSink>;

export type TClickHouseTableBytes = { table: string; rows: number; parts: number; compressed: number; uncompressed: number; onDisk: number };

/** Active parts of the decision and outcome tables from system.parts: rows, parts, compressed and uncompressed column bytes, bytes on disk. */
export async function clickHouseTableBytes(client: ClickHouseClient): Promise<TClickHouseTableBytes[]> {
  const rs = await client.query({
    query: `SELECT table, sum(rows) AS rows, count() AS parts, sum(data_compressed_bytes) AS compressed,
                   sum(data_uncompressed_bytes) AS uncompressed, sum(bytes_on_disk) AS on_disk
              FROM system.parts WHERE active AND database = currentDatabase() AND table IN ('decision', 'outcome') GROUP BY table ORDER BY table`,
    format: "JSONEachRow",
  });
  const raw = await rs.json<{ table: string; rows: string; parts: string; compressed: string; uncompressed: string; on_disk: string }>();
  return raw.map((r) => ({
    table: r.table,
    rows: Number(r.rows),
    parts: Number(r.parts),
    compressed: Number(r.compressed),
    uncompressed: Number(r.uncompressed),
    onDisk: Number(r.on_disk),
  }));
}

/** "decision: 1,000,000 rows in 7 parts, 55 B/decision compressed (1,234 uncompressed, 56 on disk)" per table, over `decisions`. */
export function describeTableBytes(tables: readonly TClickHouseTableBytes[], decisions: number): string[] {
  const n = (v: number) => Math.round(v).toLocaleString("en-US");
  return tables.map(
    (t) =>
      `${t.table}: ${n(t.rows)} rows in ${t.parts} parts; per decision ${n(t.compressed / decisions)} B compressed, ${n(t.uncompressed / decisions)} B uncompressed, ${n(t.onDisk / decisions)} B on disk`,
  );
}
