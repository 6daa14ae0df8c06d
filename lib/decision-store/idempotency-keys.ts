import type pg from "pg";

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

export type TKeyClaim = { id: string; operation: string; requestId: string; apiKeyId?: string | null; createdAt: number };

/** Rows logged before keys were recorded have no principal; they are keyed as '' (null matches only null, as in Postgres mode). */
const keyOf = (c: TKeyClaim) => `${c.operation}\u0000${c.requestId}\u0000${c.apiKeyId ?? ""}`;

const CLAIM = `insert into decision_idempotency_key as k (operation, request_id, api_key_id, decision_id, created_at)
  select * from unnest($1::text[], $2::text[], $3::text[], $4::uuid[], $5::timestamptz[])
  on conflict (operation, request_id, api_key_id) do update set decision_id = excluded.decision_id, created_at = excluded.created_at
    where k.created_at < excluded.created_at - make_interval(secs => $6::float8 / 1000)
  returning decision_id::text`;

const HOLDERS = `select operation, request_id, api_key_id, decision_id::text as decision_id
  from decision_idempotency_key k join unnest($1::text[], $2::text[], $3::text[]) as t(o, r, a) on (k.operation, k.request_id, k.api_key_id) = (t.o, t.r, t.a)`;

/**
 * Claims the batch's keys; returns, for each decision that lost, the id of the decision holding
 * its key (another instance's, an earlier batch's, or an earlier row of this batch).
 */
export async function claimKeys(
  pool: pg.Pool,
  claims: readonly TKeyClaim[],
  windowMs: number,
  /** Runs in the claim's transaction with the ids that won their key (the rollups are added there). */
  withWinners: (client: pg.PoolClient, won: ReadonlySet<string>) => Promise<void> = async () => {},
): Promise<Map<string, string>> {
  const losers = new Map<string, string>();
  // A key twice in one batch: the first row claims it, the others answer with it.
  const first = new Map<string, TKeyClaim>();
  for (const c of claims) {
    const held = first.get(keyOf(c));
    if (held) losers.set(c.id, held.id);
    else first.set(keyOf(c), c);
  }
  // In key order, so two instances' batches lock shared keys in the same order and wait rather than deadlock.
  const sorted = [...first.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
  const client = await pool.connect();
  try {
    await client.query("begin");
    const won = await client.query<{ decision_id: string }>(CLAIM, [
      sorted.map((c) => c.operation),
      sorted.map((c) => c.requestId),
      sorted.map((c) => c.apiKeyId ?? ""),
      sorted.map((c) => c.id),
      sorted.map((c) => new Date(c.createdAt).toISOString()),
      windowMs,
    ]);
    const winners = new Set(won.rows.map((r) => r.decision_id));
    const lost = sorted.filter((c) => !winners.has(c.id));
    if (lost.length > 0) {
      // A statement of its own: it sees claims committed while the insert waited on their row locks.
      const held = await client.query<{ operation: string; request_id: string; api_key_id: string; decision_id: string }>(HOLDERS, [
        lost.map((c) => c.operation),
        lost.map((c) => c.requestId),
        lost.map((c) => c.apiKeyId ?? ""),
      ]);
      const byKey = new Map(held.rows.map((r) => [`${r.operation}\u0000${r.request_id}\u0000${r.api_key_id}`, r.decision_id]));
      for (const c of lost) losers.set(c.id, byKey.get(keyOf(c))!);
    }
    await withWinners(client, winners);
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
