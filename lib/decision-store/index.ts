import { ClickHouseLogLevel, createClient, type ClickHouseClient } from "@clickhouse/client";
import type pg from "pg";
import { readProcessSlot, writeProcessSlot } from "../runtime";
import { type TDecisionStoreHandle, type TOpenDecisionStore, type TRawDecisionCounter, IDEMPOTENCY_WINDOW_MS } from "../dataplane";
import { createClickHouseLogStore, REPLAYED_CHUNK_TABLE_DDL } from "./clickhouse/log-store";
import { createClickHouseReads, type ClickHouseReads } from "./clickhouse/reads";
import { ensureClickHouseSchema } from "./clickhouse/schema";
import { CLAIM_LOG_TABLE_DDL, pruneClaims } from "./idempotency-keys";
import { DEFAULT_INSERTS_IN_FLIGHT, decisionStoreSettings, type TDecisionStoreSettings } from "./settings";

export { decisionStoreSettings, type TDecisionStoreSettings } from "./settings";
export type { ClickHouseReads, TClickHouseDecision, TClickHouseListFilter } from "./clickhouse/reads";
export type { TLatestOutcome } from "./clickhouse/outcomes";

type TClickHouseSettings = Extract<TDecisionStoreSettings, { kind: "clickhouse" }>;

function clickHouseClient(s: TClickHouseSettings): ClickHouseClient {
  // Answers gzipped (record text compresses well); inserts only when asked (gzip costs the instance
  // CPU per row that only a remote server's network repays); a request that hangs fails into the
  // spool. The client's own log is off: the decision log reports ClickHouse going away and coming back once each.
  return createClient({
    url: s.url,
    database: s.database,
    compression: { response: true, request: s.compressInserts ?? false },
    request_timeout: 10_000,
    log: { level: ClickHouseLogLevel.OFF },
  });
}

/**
 * The decision store in ClickHouse mode, for the data plane: the decision log's store (claims in
 * Postgres, rows in ClickHouse), the reads (lookups, GET /decisions/:id, outcome validation) and
 * the hourly maintenance (expired claims). Creates the tables when missing (ClickHouse's decision
 * table, Postgres's claim table); ClickHouse must answer at start.
 */
export async function openClickHouseDecisionStore(settings: TClickHouseSettings, pool: pg.Pool): Promise<TDecisionStoreHandle> {
  const client = clickHouseClient(settings);
  await ensureClickHouseSchema(client, settings);
  // Created here rather than by a migration: only this mode has it, and it holds one window of keys.
  await pool.query(CLAIM_LOG_TABLE_DDL);
  await pool.query(REPLAYED_CHUNK_TABLE_DDL);
  return {
    describe: `ClickHouse at ${new URL(settings.url).host}, database ${settings.database}`,
    log: createClickHouseLogStore({ client, pool, windowMs: IDEMPOTENCY_WINDOW_MS }),
    logConcurrency: settings.insertsInFlight ?? DEFAULT_INSERTS_IN_FLIGHT,
    reads: createClickHouseReads(client),
    async maintain(now) {
      await pruneClaims(pool, IDEMPOTENCY_WINDOW_MS, now);
      await pool.query(`delete from decision_store_replayed where replayed_at < $1`, [new Date(now - 30 * 86_400_000).toISOString()]);
    },
    close: () => client.close(),
  };
}

/** The data plane's opener for the configured store; undefined in Postgres mode (the decision table). */
export function decisionStoreOpener(settings: TDecisionStoreSettings): TOpenDecisionStore | undefined {
  if (settings.kind === "postgres") return undefined;
  return (pool) => openClickHouseDecisionStore(settings, pool);
}

/**
 * The console's decision reads in ClickHouse mode, or null in Postgres mode. Built from the
 * environment on first use and kept in a process slot: the console's pages run in Next's
 * bundles, beside server.ts in one process.
 */
export function consoleClickHouseReads(env: Readonly<Record<string, string | undefined>> = process.env): ClickHouseReads | null {
  const s = decisionStoreSettings(env);
  if (s.kind !== "clickhouse") return null;
  const key = `${s.url} ${s.database}`;
  const held = readProcessSlot<{ key: string; reads: ClickHouseReads }>("decisionStore");
  if (held?.key === key) return held.reads;
  const reads = createClickHouseReads(clickHouseClient(s));
  writeProcessSlot("decisionStore", { key, reads });
  return reads;
}

/** The console's counter of decision rows in ClickHouse mode (the raw part of lib/dataplane's countDecisions), or undefined in Postgres mode. */
export function consoleDecisionCounter(env: Readonly<Record<string, string | undefined>> = process.env): TRawDecisionCounter | undefined {
  const reads = consoleClickHouseReads(env);
  return reads ? (q, ranges) => reads.count(q, ranges) : undefined;
}
