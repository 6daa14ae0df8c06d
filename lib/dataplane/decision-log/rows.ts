import type pg from "pg";

/** One decision-log row, also the spool's line format (so replay needs no conversion). */
export type TDecisionRow = {
  id: string;
  /** Epoch ms; equals the record's `at`. */
  createdAt: number;
  operation: string;
  region: string;
  requestId: string;
  policyVersion: string | null;
  shadowVersion: string | null;
  selectedProvider: string | null;
  reasonCode: string;
  shadowPick: string | null;
  shadowAgrees: boolean | null;
  scoreMargin: number | null;
  stale: boolean;
  metricAgeMs: number | null;
  fallbackAction: string | null;
  degraded: boolean;
  /** The response body as sent, stored as jsonb. */
  body: string;
  durability: "sync" | "async";
  instanceId: string;
};

/** A row that was already logged for the same (operation, requestId) within the idempotency window. */
export type TExistingDecision = { id: string; body: string };

export const IDEMPOTENCY_WINDOW_MS = 5 * 60_000;

const COLUMNS =
  "id, created_at, operation, region, request_id, policy_version, shadow_version, selected_provider, reason_code, shadow_pick, shadow_agrees, score_margin, stale, metric_age_ms, fallback_action, degraded, record, durability, instance_id";

const UNNEST = `unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
  $10::text[], $11::bool[], $12::float8[], $13::bool[], $14::int[], $15::text[], $16::bool[], $17::text[], $18::text[], $19::text[])
  as t(id, created_at, operation, region, request_id, policy_version, shadow_version, selected_provider, reason_code, shadow_pick,
       shadow_agrees, score_margin, stale, metric_age_ms, fallback_action, degraded, record, durability, instance_id)`;

/**
 * Inserts the rows whose (operation, request_id) has no decision within the idempotency window
 * and returns the existing decisions for the others. One statement for the whole batch, with
 * one array parameter per column, so its size never hits the bind-parameter limit.
 */
const INSERT_DEDUPED = `with input as (select * from ${UNNEST}),
existing as (
  select distinct on (i.id) i.id as input_id, d.id, d.record::text as body
    from input i
    join decision d on d.operation = i.operation and d.request_id = i.request_id
                   and d.created_at > i.created_at - interval '${IDEMPOTENCY_WINDOW_MS} milliseconds'
                   and d.created_at > $20::timestamptz
   order by i.id, d.created_at
),
ins as (
  insert into decision (${COLUMNS})
  select t.id, t.created_at, t.operation, t.region, t.request_id, t.policy_version, t.shadow_version, t.selected_provider, t.reason_code,
         t.shadow_pick, t.shadow_agrees, t.score_margin, t.stale, t.metric_age_ms, t.fallback_action, t.degraded, t.record::jsonb,
         t.durability, t.instance_id
    from input t where not exists (select 1 from existing e where e.input_id = t.id)
  on conflict do nothing
)
select input_id, id, body from existing`;

/** Replay of spooled rows: the primary key makes a second replay of the same segment a no-op. */
const INSERT_REPLAY = `insert into decision (${COLUMNS})
  select t.id, t.created_at, t.operation, t.region, t.request_id, t.policy_version, t.shadow_version, t.selected_provider, t.reason_code,
         t.shadow_pick, t.shadow_agrees, t.score_margin, t.stale, t.metric_age_ms, t.fallback_action, t.degraded, t.record::jsonb,
         t.durability, t.instance_id
    from ${UNNEST}
  on conflict do nothing`;

/**
 * Rows for the same (operation, request_id) arriving at two instances at once are serialised by
 * a transaction-scoped advisory lock per key, taken in a statement before the insert so the
 * insert's snapshot sees whatever the other transaction committed.
 */
const LOCK_KEYS = `select pg_advisory_xact_lock(k) from (
  select distinct hashtextextended(o || chr(31) || r, 0) as k from unnest($1::text[], $2::text[]) as t(o, r) order by 1) s`;

function columnArrays(rows: readonly TDecisionRow[]): unknown[] {
  const n = rows.length;
  const cols: unknown[][] = Array.from({ length: 19 }, () => new Array<unknown>(n));
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    cols[0]![i] = r.id;
    cols[1]![i] = new Date(r.createdAt).toISOString();
    cols[2]![i] = r.operation;
    cols[3]![i] = r.region;
    cols[4]![i] = r.requestId;
    cols[5]![i] = r.policyVersion;
    cols[6]![i] = r.shadowVersion;
    cols[7]![i] = r.selectedProvider;
    cols[8]![i] = r.reasonCode;
    cols[9]![i] = r.shadowPick;
    cols[10]![i] = r.shadowAgrees;
    cols[11]![i] = r.scoreMargin;
    cols[12]![i] = r.stale;
    cols[13]![i] = r.metricAgeMs;
    cols[14]![i] = r.fallbackAction;
    cols[15]![i] = r.degraded;
    cols[16]![i] = r.body;
    cols[17]![i] = r.durability;
    cols[18]![i] = r.instanceId;
  }
  return cols;
}

/**
 * Writes one batch in one transaction; returns, by the input row id, the already-logged decision
 * that wins over it (the caller answers with that one instead).
 */
export async function insertDecisions(client: pg.PoolClient, rows: readonly TDecisionRow[]): Promise<Map<string, TExistingDecision>> {
  let oldest = Infinity;
  for (const r of rows) if (r.createdAt < oldest) oldest = r.createdAt;
  await client.query("begin");
  try {
    await client.query(LOCK_KEYS, [rows.map((r) => r.operation), rows.map((r) => r.requestId)]);
    const params = columnArrays(rows);
    params.push(new Date(oldest - IDEMPOTENCY_WINDOW_MS).toISOString());
    const res = await client.query<{ input_id: string; id: string; body: string }>({ name: "decision_insert_dedup", text: INSERT_DEDUPED, values: params });
    await client.query("commit");
    const existing = new Map<string, TExistingDecision>();
    for (const r of res.rows) existing.set(r.input_id, { id: r.id, body: r.body });
    return existing;
  } catch (err) {
    await client.query("rollback").catch(() => {});
    throw err;
  }
}

export async function replayDecisions(client: pg.PoolClient, rows: readonly TDecisionRow[]): Promise<void> {
  await client.query({ name: "decision_insert_replay", text: INSERT_REPLAY, values: columnArrays(rows) });
}
