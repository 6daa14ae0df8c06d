import { createHash } from "node:crypto";
import type pg from "pg";
import { rollupDeltasOf, type TDecisionRow } from "../dataplane";

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

const ROLLUP_KEY = "operation, region, minute, selected_provider, reason_code, policy_version, shadow, stale, degraded, source";

/**
 * One statement, so one round trip and its own transaction: the claims, then decision_rollup's
 * cells for the rows that won their key (a cell per row, $6-$14; a row not to be counted has a
 * null minute), summed and upserted in key order as rollup.ts does. Returns the rows that lost.
 */
const CLAIM = `with input as (
    select * from unnest($2::uuid[], $3::uuid[], $4::timestamptz[]) as t(key_hash, decision_id, created_at)
  ), claimed as (
    insert into decision_idempotency_key as k (key_hash, decision_id, created_at)
    select * from input
    on conflict (key_hash) do update set decision_id = excluded.decision_id, created_at = excluded.created_at
      where k.created_at < excluded.created_at - make_interval(secs => $5::float8 / 1000)
    returning decision_id
  ), cells as (
    select * from unnest($3::uuid[], $1::text[], $6::text[], $7::int8[], $8::text[], $9::text[], $10::text[], $11::text[], $12::bool[], $13::bool[], $14::text[])
      as c(decision_id, operation, region, minute, selected_provider, reason_code, policy_version, shadow, stale, degraded, source)
    where c.minute is not null and c.decision_id in (select decision_id from claimed)
  ), rolled as (
    insert into decision_rollup (${ROLLUP_KEY}, count)
    select operation, region, to_timestamp(minute / 1000.0), selected_provider, reason_code, policy_version, shadow, stale, degraded, source, count(*)
      from cells group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    on conflict (${ROLLUP_KEY}) do update set count = decision_rollup.count + excluded.count
  )
  select decision_id::text from input where decision_id not in (select decision_id from claimed)`;

const HOLDERS = `select key_hash::text as key_hash, decision_id::text as decision_id from decision_idempotency_key where key_hash = any($1::uuid[])`;

function claimParams(rows: readonly TDecisionRow[], windowMs: number): unknown[] {
  const cells = rows.map((r) => rollupDeltasOf([r])[0] ?? null);
  const cell = <K extends keyof NonNullable<(typeof cells)[number]>>(k: K) => cells.map((c) => (c === null ? null : c[k]));
  return [
    rows.map((r) => r.operation),
    rows.map((r) => keyHash(keyOf(r))),
    rows.map((r) => r.id),
    rows.map((r) => new Date(r.createdAt).toISOString()),
    windowMs,
    rows.map((r) => r.region),
    cell("minute"),
    cell("selectedProvider"),
    cell("reasonCode"),
    cell("policyVersion"),
    cell("shadow"),
    cell("stale"),
    cell("degraded"),
    cell("source"),
  ];
}

/**
 * Claims the batch's keys and counts the rows that won them in decision_rollup, atomically;
 * returns, for each row that lost, the id of the decision holding its key (another instance's,
 * an earlier batch's, or an earlier row of this batch).
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
  const lost = await pool.query<{ decision_id: string }>({ name: "decision_claim_keys", text: CLAIM, values: claimParams(sorted, windowMs) });
  if (lost.rows.length > 0) {
    const ids = new Set(lost.rows.map((r) => r.decision_id));
    const mine = sorted.filter((r) => ids.has(r.id));
    // A statement of its own: it sees claims committed while the insert waited on their row locks.
    const held = await pool.query<{ key_hash: string; decision_id: string }>(HOLDERS, [mine.map((r) => keyHash(keyOf(r)))]);
    const byKey = new Map(held.rows.map((h) => [h.key_hash, h.decision_id]));
    for (const r of mine) losers.set(r.id, byKey.get(keyHash(keyOf(r)))!);
  }
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
