import type { ClickHouseClient } from "@clickhouse/client";
import type pg from "pg";
import { type TDecisionRow, type TDecisionWrite, type TExistingDecision, addRollupDeltas, rollupDeltasOf } from "../../dataplane";
import { createClaimLog, type ClaimLog } from "../idempotency-keys";
import { classified } from "./errors";
import { batchToken, clickHouseRow, DECISION_COLUMNS } from "./rows";

export type TClickHouseLogStoreOptions = {
  client: ClickHouseClient;
  /** Postgres, for the idempotency claims (idempotency-keys.ts) and the rollups. */
  pool: pg.Pool;
  windowMs: number;
  /** This instance's claim log; default, its own on `pool`. */
  claims?: ClaimLog;
  /** How long a decision that lost its key waits for the holder's row to be readable in ClickHouse. */
  holderWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
};

/** Someone else's decision holds the key but is not in ClickHouse yet (in flight, or in its instance's spool): retry shortly. */
export class HolderNotReadableError extends Error {
  readonly retryAfterSeconds = 1;
}

/**
 * Spool chunks whose rows were counted in decision_rollup when they were replayed: a segment
 * replayed again (a crash before its file was deleted) is cut into the same chunks, so the same
 * tokens, and counts nothing twice. Pruned with the spool's horizon in mind (30 days).
 */
export const REPLAYED_CHUNK_TABLE_DDL = `create table if not exists decision_store_replayed (
  token text primary key,
  replayed_at timestamptz not null default now()
)`;

/**
 * Every insert is synchronous whatever the server's default (`async_insert` is on by default in
 * recent ClickHouse; with `wait_for_async_insert = 0` an insert would be answered before it is
 * written, and a decide acknowledged before its row exists) and deduplicated by its token.
 */
const INSERT_SETTINGS = { async_insert: 0, insert_deduplicate: 1 } as const;

/**
 * The decision log's store in ClickHouse mode: claims the batch's idempotency keys in the claim
 * log (idempotency-keys.ts) and adds the winners to decision_rollup in the same transaction
 * (Postgres keeps the rollups), then inserts the winners into ClickHouse as one insert
 * deduplicated by the batch's token, and answers the losers with the holder's record.
 */
export function createClickHouseLogStore(opts: TClickHouseLogStoreOptions) {
  const { client } = opts;
  const claims = opts.claims ?? createClaimLog({ pool: opts.pool, windowMs: opts.windowMs });
  const holderWaitMs = opts.holderWaitMs ?? 2_000;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  async function insert(rows: readonly TDecisionRow[]): Promise<void> {
    if (rows.length === 0) return;
    try {
      await client.insert({
        table: "decision",
        values: rows.map(clickHouseRow),
        columns: [...DECISION_COLUMNS],
        format: "JSONCompactEachRow",
        clickhouse_settings: { ...INSERT_SETTINGS, insert_deduplication_token: batchToken(rows) },
      });
    } catch (err) {
      throw classified(err);
    }
  }

  /** The records of `ids`, waiting (bounded) for those another instance is still writing. */
  async function holders(ids: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const deadline = Date.now() + holderWaitMs;
    for (let wait = 20; ; wait = Math.min(wait * 2, 200)) {
      const missing = ids.filter((id) => !found.has(id));
      const rs = await client.query({
        query: "SELECT id, record FROM decision WHERE id IN {ids:Array(UUID)} LIMIT 1 BY id",
        query_params: { ids: missing },
        format: "JSONEachRow",
      });
      for (const r of await rs.json<{ id: string; record: string }>()) found.set(r.id, r.record);
      if (found.size === ids.length || Date.now() >= deadline) return found;
      await sleep(wait);
    }
  }

  return {
    async write(batch: readonly TDecisionWrite[]): Promise<Map<string, TExistingDecision | Error>> {
      const rows = batch.map((w) => w.row);
      const lost = await claims.claim(rows);
      const winners = rows.filter((r) => !lost.has(r.id));
      try {
        await insert(winners);
      } catch (err) {
        // The batch goes to the spool as these row objects; their minutes are already counted, so
        // the replay must not count them again.
        for (const r of winners) r.counted = false;
        throw err;
      }
      const out = new Map<string, TExistingDecision | Error>();
      if (lost.size === 0) return out;
      const inBatch = new Map(rows.map((r) => [r.id, r.body]));
      const elsewhere = [...new Set([...lost.values()].filter((id) => !inBatch.has(id)))];
      let found = new Map<string, string>();
      try {
        if (elsewhere.length > 0) found = await holders(elsewhere);
      } catch (err) {
        throw classified(err);
      }
      for (const [id, holder] of lost) {
        const body = inBatch.get(holder) ?? found.get(holder);
        out.set(
          id,
          body !== undefined ? { id: holder, body } : new HolderNotReadableError(`decision ${holder} holds this request's key but is not readable yet`),
        );
      }
      return out;
    },

    /**
     * Spooled rows were acknowledged without a claim (as in Postgres mode). The token makes a
     * chunk inserted twice a no-op in ClickHouse; the chunk's rollup is added once, after the
     * insert, under the same token.
     */
    async replay(rows: readonly TDecisionRow[]): Promise<void> {
      await insert(rows);
      const client = await opts.pool.connect();
      try {
        await client.query("begin");
        const first = await client.query(`insert into decision_store_replayed (token) values ($1) on conflict do nothing`, [batchToken(rows)]);
        if (first.rowCount === 1) await addRollupDeltas(client, rollupDeltasOf(rows));
        await client.query("commit");
      } catch (err) {
        await client.query("rollback").catch(() => {});
        client.release(true);
        throw err;
      }
      client.release();
    },

    /** Throws while ClickHouse or Postgres is unreachable. */
    async probe(): Promise<void> {
      const ping = await client.ping();
      if (!ping.success) throw ping.error;
      await opts.pool.query("select 1");
    },
  };
}

export type ClickHouseLogStore = ReturnType<typeof createClickHouseLogStore>;
