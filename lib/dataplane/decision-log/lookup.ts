import type pg from "pg";
import { isUuid, uuidV7Time } from "../decision-id";
import type { TDecisionReadStore } from "./store";

export type TDecisionRef = {
  id: string;
  operation: string;
  region: string;
  selectedProvider: string | null;
  createdAt: number;
  /** The providers outcomes may name (rows.ts offeredProviders); null for a row logged before they were recorded. */
  offeredProviders: string[] | null;
  /** Outcomes stored for it: provider calls by provider, and business outcomes (outcomes.ts bounds both). */
  stored: { calls: Record<string, number>; business: number };
};

const LOOKUP_COLUMNS = `select d.id, d.operation, d.region, d.selected_provider, d.created_at, d.offered_providers,
    (select json_object_agg(c.provider_key, c.n) from (select provider_key, count(*)::int as n from provider_call_outcome o
       where o.decision_id = d.id::text group by provider_key) c) as calls,
    (select count(*)::int from business_outcome b where b.decision_id = d.id::text) as business
  from decision d`;

/** Partition pruning window for a UUIDv7 id: its embedded timestamp ± one minute of clock skew. */
const SKEW_MS = 60_000;

/** Outcomes stored per decision, for a store that does not keep them itself. */
const OUTCOME_COUNTS = `select t.id,
    (select json_object_agg(c.provider_key, c.n) from (select provider_key, count(*)::int as n from provider_call_outcome o
       where o.decision_id = t.id group by provider_key) c) as calls,
    (select count(*)::int from business_outcome b where b.decision_id = t.id) as business
  from unnest($1::text[]) as t(id)`;

/** Outcomes stored per decision among `ids`: from the store that keeps them, else from Postgres. */
async function outcomeCounts(pool: pg.Pool | pg.PoolClient, reads: TDecisionReadStore, ids: string[]) {
  if (reads.outcomes) return reads.outcomes.counts(ids);
  const counts = await pool.query<{ id: string; calls: Record<string, number> | null; business: number }>({
    name: "decision_outcome_counts",
    text: OUTCOME_COUNTS,
    values: [ids],
  });
  return new Map(counts.rows.map((c) => [c.id, { calls: c.calls ?? {}, business: c.business }]));
}

/** findDecisions with another store (ClickHouse): the rows and their outcome counts from it. */
async function findInStore(pool: pg.Pool | pg.PoolClient, reads: TDecisionReadStore, ids: string[]): Promise<Map<string, TDecisionRef>> {
  const rows = await reads.find(ids);
  const out = new Map<string, TDecisionRef>();
  if (rows.length === 0) return out;
  const byId = await outcomeCounts(
    pool,
    reads,
    rows.map((r) => r.id),
  );
  for (const r of rows) {
    const c = byId.get(r.id);
    out.set(r.id, {
      id: r.id,
      operation: r.operation,
      region: r.region,
      selectedProvider: r.selected,
      createdAt: r.at,
      offeredProviders: r.offeredProviders === null ? null : r.offeredProviders.split(","),
      stored: { calls: c?.calls ?? {}, business: c?.business ?? 0 },
    });
  }
  return out;
}

/**
 * The logged decisions among `ids` (e.g. to validate an outcome batch), in one query. Ids that
 * are not UUIDs are simply absent from the result. `reads`: ClickHouse mode's store.
 */
export async function findDecisions(
  pool: pg.Pool | pg.PoolClient,
  ids: readonly string[],
  reads?: TDecisionReadStore | null,
): Promise<Map<string, TDecisionRef>> {
  const valid = [...new Set(ids.filter(isUuid).map((s) => s.toLowerCase()))];
  const out = new Map<string, TDecisionRef>();
  if (valid.length === 0) return out;
  if (reads) return findInStore(pool, reads, valid);
  let lo = Infinity;
  let hi = -Infinity;
  for (const id of valid) {
    const t = uuidV7Time(id);
    if (t === null) {
      lo = -Infinity;
      hi = Infinity;
      break;
    }
    lo = Math.min(lo, t);
    hi = Math.max(hi, t);
  }
  const bounded = Number.isFinite(lo);
  // Named (prepared once per connection): this runs for every outcome batch. The counts are an
  // index probe per decision on each outcome table's decision_id.
  const { rows } = await pool.query<{
    id: string;
    operation: string;
    region: string;
    selected_provider: string | null;
    created_at: Date;
    offered_providers: string | null;
    calls: Record<string, number> | null;
    business: number;
  }>(
    bounded
      ? {
          name: "decision_lookup_bounded_counted",
          text: `${LOOKUP_COLUMNS} where d.id = any($1::uuid[]) and d.created_at between $2 and $3`,
          values: [valid, new Date(lo - SKEW_MS).toISOString(), new Date(hi + SKEW_MS).toISOString()],
        }
      : { name: "decision_lookup_counted", text: `${LOOKUP_COLUMNS} where d.id = any($1::uuid[])`, values: [valid] },
  );
  for (const r of rows) {
    out.set(r.id, {
      id: r.id,
      operation: r.operation,
      region: r.region,
      selectedProvider: r.selected_provider,
      createdAt: r.created_at.getTime(),
      offeredProviders: r.offered_providers === null ? null : r.offered_providers.split(","),
      stored: { calls: r.calls ?? {}, business: r.business },
    });
  }
  return out;
}

/** The logged record (the decide response body, its candidate list put back) of one decision, or null. */
export async function readDecisionRecord(pool: pg.Pool, id: string, reads?: TDecisionReadStore | null): Promise<Record<string, unknown> | null> {
  if (!isUuid(id)) return null;
  if (reads) {
    const row = await reads.get(id);
    return row === null ? null : (JSON.parse(row.record) as Record<string, unknown>);
  }
  const t = uuidV7Time(id);
  const { rows } = await pool.query<{ record: Record<string, unknown> }>(
    `select decision_record_text(record, candidates_id, created_at)::json as record from decision where id = $1` +
      (t === null ? "" : ` and created_at between $2 and $3`),
    t === null ? [id] : [id, new Date(t - SKEW_MS).toISOString(), new Date(t + SKEW_MS).toISOString()],
  );
  return rows[0]?.record ?? null;
}
