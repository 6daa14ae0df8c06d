import type pg from "pg";
import { rollupDeltasOf, type TDecisionRow } from "../dataplane";

/**
 * The cross-instance idempotency claim when decisions are not in Postgres: one row per
 * (operation, request_id, api_key_id), its decision and time. A batch claims its keys in one
 * statement, INSERT ... ON CONFLICT DO UPDATE only where the held claim is older than the window,
 * so of two instances deciding the same request the second finds the first's claim (the row lock
 * the insert takes serialises them: no advisory lock, no per-decision round trip). Expired
 * claims are taken over in place and pruned by the hourly maintenance, so the table holds about
 * one window of keys.
 */
export const IDEMPOTENCY_KEY_TABLE_DDL = `create table if not exists decision_idempotency_key (
  operation text not null,
  request_id text not null,
  api_key_id text not null,
  decision_id uuid not null,
  created_at timestamptz not null,
  primary key (operation, request_id, api_key_id)
)`;

/** Rows logged before keys were recorded have no principal; they are keyed as '' (null matches only null, as in Postgres mode). */
const keyOf = (r: TDecisionRow) => `${r.operation}\u0000${r.requestId}\u0000${r.apiKeyId ?? ""}`;

const ROLLUP_KEY = "operation, region, minute, selected_provider, reason_code, policy_version, shadow, stale, degraded, source";

/**
 * One statement, so one round trip and its own transaction: the claims, then decision_rollup's
 * cells for the rows that won their key (a cell per row, $7-$15; a row not to be counted has a
 * null minute), summed and upserted in key order as rollup.ts does. Returns the rows that lost.
 */
const CLAIM = `with input as (
    select * from unnest($1::text[], $2::text[], $3::text[], $4::uuid[], $5::timestamptz[]) as t(operation, request_id, api_key_id, decision_id, created_at)
  ), claimed as (
    insert into decision_idempotency_key as k (operation, request_id, api_key_id, decision_id, created_at)
    select * from input
    on conflict (operation, request_id, api_key_id) do update set decision_id = excluded.decision_id, created_at = excluded.created_at
      where k.created_at < excluded.created_at - make_interval(secs => $6::float8 / 1000)
    returning decision_id
  ), cells as (
    select * from unnest($4::uuid[], $1::text[], $7::text[], $8::int8[], $9::text[], $10::text[], $11::text[], $12::text[], $13::bool[], $14::bool[], $15::text[])
      as c(decision_id, operation, region, minute, selected_provider, reason_code, policy_version, shadow, stale, degraded, source)
    where c.minute is not null and c.decision_id in (select decision_id from claimed)
  ), rolled as (
    insert into decision_rollup (${ROLLUP_KEY}, count)
    select operation, region, to_timestamp(minute / 1000.0), selected_provider, reason_code, policy_version, shadow, stale, degraded, source, count(*)
      from cells group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 order by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    on conflict (${ROLLUP_KEY}) do update set count = decision_rollup.count + excluded.count
  )
  select decision_id::text from input where decision_id not in (select decision_id from claimed)`;

const HOLDERS = `select operation, request_id, api_key_id, decision_id::text as decision_id
  from decision_idempotency_key k join unnest($1::text[], $2::text[], $3::text[]) as t(o, r, a) on (k.operation, k.request_id, k.api_key_id) = (t.o, t.r, t.a)`;

function claimParams(rows: readonly TDecisionRow[], windowMs: number): unknown[] {
  const cells = rows.map((r) => rollupDeltasOf([r])[0] ?? null);
  const cell = <K extends keyof NonNullable<(typeof cells)[number]>>(k: K) => cells.map((c) => (c === null ? null : c[k]));
  return [
    rows.map((r) => r.operation),
    rows.map((r) => r.requestId),
    rows.map((r) => r.apiKeyId ?? ""),
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
    const held = await pool.query<{ operation: string; request_id: string; api_key_id: string; decision_id: string }>(HOLDERS, [
      mine.map((r) => r.operation),
      mine.map((r) => r.requestId),
      mine.map((r) => r.apiKeyId ?? ""),
    ]);
    const byKey = new Map(held.rows.map((h) => [`${h.operation}\u0000${h.request_id}\u0000${h.api_key_id}`, h.decision_id]));
    for (const r of mine) losers.set(r.id, byKey.get(keyOf(r))!);
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
