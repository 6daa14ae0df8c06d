import { createHash } from "node:crypto";
import type pg from "pg";
import { addRollupDeltas, rollupDeltasOf, type TDecisionRow } from "../dataplane";

/**
 * The cross-instance idempotency claim when decisions are not in Postgres: one row per
 * (operation, request_id, api_key_id), keyed by the first 128 bits of the key's SHA-256 (a
 * 16-byte primary key costs Postgres less per claim than the three texts), its decision and time. A batch claims its keys in one
 * statement, INSERT ... ON CONFLICT DO UPDATE only where the held claim is older than the window,
 * so of two instances deciding the same request the second finds the first's claim (the row lock
 * the insert takes serialises them: no advisory lock, no per-decision round trip). Expired
 * claims are taken over in place and pruned by the hourly maintenance, so the table holds about
 * one window of keys.
 */
export const IDEMPOTENCY_KEY_TABLE_DDL = `create table if not exists decision_idempotency_key (
  key_hash uuid primary key,
  decision_id uuid not null,
  created_at timestamptz not null
)`;

/** Rows logged before keys were recorded have no principal; they are keyed as '' (null matches only null, as in Postgres mode). */
const keyOf = (r: TDecisionRow) => `${r.operation}\u0000${r.requestId}\u0000${r.apiKeyId ?? ""}`;

function keyHash(key: string): string {
  const h = createHash("sha256").update(key).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** The claims, in one statement; returns the rows that lost their key. */
const CLAIM = `with input as (
    select * from unnest($1::uuid[], $2::uuid[], $3::timestamptz[]) as t(key_hash, decision_id, created_at)
  ), claimed as (
    insert into decision_idempotency_key as k (key_hash, decision_id, created_at)
    select * from input
    on conflict (key_hash) do update set decision_id = excluded.decision_id, created_at = excluded.created_at
      where k.created_at < excluded.created_at - make_interval(secs => $4::float8 / 1000)
    returning decision_id
  )
  select decision_id::text from input where decision_id not in (select decision_id from claimed)`;

const HOLDERS = `select key_hash::text as key_hash, decision_id::text as decision_id from decision_idempotency_key where key_hash = any($1::uuid[])`;

/**
 * Claims the batch's keys and counts the rows that won them in decision_rollup (rollup.ts), in one
 * transaction; returns, for each row that lost, the id of the decision holding its key (another
 * instance's, an earlier batch's, or an earlier row of this batch).
 */
export async function claimKeys(pool: pg.Pool, rows: readonly TDecisionRow[], windowMs: number): Promise<Map<string, string>> {
  const losers = new Map<string, string>();
  // A key twice in one batch: the first row claims it, the others answer with it.
  const first = new Map<string, TDecisionRow>();
  for (const r of rows) {
    const held = first.get(keyOf(r));
    if (held) losers.set(r.id, held.id);
    else first.set(keyOf(r), r);
  }
  // In key order, so two instances' batches lock shared keys in the same order and wait rather than deadlock.
  const sorted = [...first.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
  const client = await pool.connect();
  try {
    await client.query("begin");
    const lost = await client.query<{ decision_id: string }>({
      name: "decision_claim_keys",
      text: CLAIM,
      values: [sorted.map((r) => keyHash(keyOf(r))), sorted.map((r) => r.id), sorted.map((r) => new Date(r.createdAt).toISOString()), windowMs],
    });
    const ids = new Set(lost.rows.map((r) => r.decision_id));
    if (ids.size > 0) {
      const mine = sorted.filter((r) => ids.has(r.id));
      // A statement of its own: it sees claims committed while the insert waited on their row locks.
      const held = await client.query<{ key_hash: string; decision_id: string }>(HOLDERS, [mine.map((r) => keyHash(keyOf(r)))]);
      const byKey = new Map(held.rows.map((h) => [h.key_hash, h.decision_id]));
      for (const r of mine) losers.set(r.id, byKey.get(keyHash(keyOf(r)))!);
    }
    // The winners' minutes, in the claim's transaction: counted once, whoever replays what.
    await addRollupDeltas(client, rollupDeltasOf(sorted.filter((r) => !ids.has(r.id))));
    await client.query("commit");
  } catch (err) {
    await client.query("rollback").catch(() => {});
    client.release(true);
    throw err;
  }
  client.release();
  // Later rows of a key whose first row lost answer with the holder too.
  for (const [id, firstId] of losers) {
    const holder = losers.get(firstId);
    if (holder !== undefined) losers.set(id, holder);
  }
  return losers;
}

/** Deletes claims older than the window (hourly maintenance). */
export async function pruneKeys(pool: pg.Pool, windowMs: number, now: number): Promise<number> {
  const r = await pool.query(`delete from decision_idempotency_key where created_at < $1`, [new Date(now - windowMs).toISOString()]);
  return r.rowCount ?? 0;
}
