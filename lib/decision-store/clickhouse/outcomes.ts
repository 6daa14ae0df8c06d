import type { ClickHouseClient } from "@clickhouse/client";
import { outcomeRows, uuidV7Time, type TPendingOutcome, type TStoredOutcome, type TStoredOutcomeCounts } from "../../dataplane";
import { classified } from "./errors";
import type { TRetention } from "./retention";
import { queryRows } from "./range-reads";
import { batchToken } from "./rows";

/** An outcome is reported after its decision: reads by decision id skip the days before it (less this much clock skew). */
const SKEW_MS = 60_000;

/**
 * Both outcome kinds in one table (a `kind` column; each kind's own columns null in the other):
 * every read is by decision, and one table is one insert per batch. Immutable rows;
 * ReplacingMergeTree over a key that ends in the outcome id folds the copy a replayed spool
 * segment may add (readers keep one row per outcome id: LIMIT 1 BY, distinct counts), and insert_deduplication_token drops
 * a batch sent twice. Daily partitions by report time; the key leads with the decision id, which
 * every read names (drilldown, the bound's counts, the listing's latest outcome, the shadow
 * view), so each day's part answers from its primary index. The listing's outcome filter reads
 * the business outcomes reported since the window's start, which the partitions bound.
 *
 * Retention follows the decision table's tiers: after the full-record days, outcomes are thinned
 * with the same hash of the decision id that keeps a routine decision in the sample (so a sampled
 * decision keeps all its outcomes), and every failure (a failed call, a business flow that did
 * not complete) is kept, since failures are what explain an incident.
 */
export function outcomeTableDdl(r: TRetention): string {
  return `CREATE TABLE IF NOT EXISTS outcome (
  decision_id UUID,
  outcome_id UUID,
  reported_at DateTime64(3, 'UTC'),
  kind Enum8('call' = 1, 'business' = 2),
  api_key_id Nullable(String),
  operation LowCardinality(String),
  region LowCardinality(String),
  provider LowCardinality(Nullable(String)),
  status LowCardinality(Nullable(String)),
  error_class LowCardinality(Nullable(String)),
  http_status Nullable(UInt16),
  latency_ms Nullable(Float64),
  retry_count Nullable(UInt16),
  ttfb_ms Nullable(Float64),
  detail Nullable(String),
  completed Nullable(Bool),
  failure_stage LowCardinality(Nullable(String)),
  within_sla Nullable(Bool)
)
ENGINE = ReplacingMergeTree
PARTITION BY toDate(reported_at)
ORDER BY (decision_id, outcome_id)
TTL ${outcomeTtl(r)}
SETTINGS non_replicated_deduplication_window = 10000`;
}

/** The outcome table's TTL for the retention tiers (applied again by ensureClickHouseSchema when they change). */
export function outcomeTtl(r: TRetention): string {
  return `toDateTime(reported_at) + INTERVAL ${r.fullDays} DAY DELETE WHERE cityHash64(decision_id) % 10000 >= ${r.routineSampleBasisPoints}
      AND ifNull(status, 'success') = 'success' AND ifNull(completed, true),
    toDateTime(reported_at) + INTERVAL ${r.keepDays} DAY DELETE`;
}

type TRawOutcome = {
  decision_id: string;
  kind: "call" | "business";
  at_ms: string;
  api_key_id: string | null;
  provider: string | null;
  status: string | null;
  error_class: string | null;
  http_status: number | null;
  latency_ms: number | null;
  retry_count: number | null;
  detail: string | null;
  completed: boolean | null;
  failure_stage: string | null;
  within_sla: boolean | null;
};

const COLUMNS = `decision_id, kind, toString(toUnixTimestamp64Milli(reported_at)) AS at_ms, api_key_id, provider, status,
  error_class, http_status, latency_ms, retry_count, detail, completed, failure_stage, within_sla`;

function toStored(r: TRawOutcome): TStoredOutcome {
  const at = Number(r.at_ms);
  if (r.kind === "call") {
    return {
      kind: "call",
      at,
      provider: r.provider!,
      status: r.status!,
      errorClass: r.error_class,
      httpStatus: r.http_status,
      latencyMs: r.latency_ms!,
      retryCount: r.retry_count!,
      detail: r.detail,
      apiKeyId: r.api_key_id,
    };
  }
  return {
    kind: "business",
    at,
    provider: r.provider,
    completed: r.completed!,
    failureStage: r.failure_stage,
    withinSla: r.within_sla!,
    apiKeyId: r.api_key_id,
  };
}

/** The earliest report time any outcome of `ids` can have: the oldest decision's UUIDv7 time less the skew (0 when an id carries none). */
function reportedFloor(ids: readonly string[]): Date {
  let lo = Infinity;
  for (const id of ids) {
    const t = uuidV7Time(id);
    if (t === null) return new Date(0);
    lo = Math.min(lo, t);
  }
  return new Date(Number.isFinite(lo) ? lo - SKEW_MS : 0);
}

/** The latest business outcome and the latest call of one provider, per decision (the listing and the shadow view show them). */
export type TLatestOutcome = {
  completed: boolean | null;
  failureStage: string | null;
  callStatus: string | null;
  callError: string | null;
};

/** A listing's outcome filter: decisions with a business outcome (completed or failed) reported since `reportedFrom`, or with none. */
export type TOutcomeFilter = { outcome: "completed" | "failed" | "pending"; reportedFrom: number };

/** The WHERE term and parameters of an outcome filter on the decision table. */
export function outcomeFilterSql(f: TOutcomeFilter): { where: string; params: Record<string, unknown> } {
  const completed = f.outcome === "completed" ? " AND completed = true" : f.outcome === "failed" ? " AND completed = false" : "";
  const sub = `SELECT decision_id FROM outcome WHERE kind = 'business' AND reported_at >= {outcomeFrom:DateTime64(3)}${completed}`;
  return { where: `id ${f.outcome === "pending" ? "NOT IN" : "IN"} (${sub})`, params: { outcomeFrom: new Date(f.reportedFrom) } };
}

/** ClickHouse mode's outcome store: the writes the outcome service makes (TOutcomeStore) and the console's reads. */
export function createClickHouseOutcomes(client: ClickHouseClient) {
  const rows = <T>(query: string, params: Record<string, unknown>) => queryRows<T>(client, query, params);

  /**
   * Every stored outcome of `ids`, oldest first. One row per outcome id by LIMIT 1 BY rather than
   * FINAL (a copy a replay wrote is the same row): FINAL filters only on the key, so the report-time
   * bound pruned no partition, and UUIDv7 ids, which ClickHouse orders by their random half, put
   * each decision in its own granule of every day's part.
   */
  async function outcomesOf(ids: readonly string[]): Promise<TRawOutcome[]> {
    if (ids.length === 0) return [];
    return rows<TRawOutcome>(
      `SELECT ${COLUMNS} FROM outcome WHERE decision_id IN {ids:Array(UUID)} AND reported_at >= {lo:DateTime64(3)}
        ORDER BY reported_at, toString(outcome_id) LIMIT 1 BY outcome_id`,
      { ids, lo: reportedFloor(ids) },
    );
  }

  return {
    /**
     * One insert per batch, deduplicated by a hash of its outcome ids (a spooled outcome keeps its
     * id, so a replayed chunk carries the same token). Fails as the Postgres insert does: an
     * outage without a `severity` (the service spools the batch), a refusal with one.
     */
    async insert(items: readonly TPendingOutcome[]): Promise<void> {
      const { calls, business } = outcomeRows(items);
      if (calls.length === 0 && business.length === 0) return;
      const common = (r: (typeof calls)[number] | (typeof business)[number]) => ({
        decision_id: r.decision_id,
        outcome_id: r.outcome_id,
        reported_at: Date.parse(r.reported_at),
        api_key_id: r.api_key_id,
        operation: r.operation_key,
        region: r.region,
        provider: r.provider_key,
      });
      const values = [
        ...calls.map((c) => ({
          ...common(c),
          kind: "call",
          status: c.status,
          error_class: c.error_class,
          http_status: c.http_status,
          latency_ms: c.latency_ms,
          retry_count: c.retry_count,
          ttfb_ms: c.ttfb_ms,
          detail: c.detail,
        })),
        ...business.map((b) => ({ ...common(b), kind: "business", completed: b.completed, failure_stage: b.failure_stage, within_sla: b.within_sla })),
      ];
      try {
        await client.insert({
          table: "outcome",
          values,
          format: "JSONEachRow",
          clickhouse_settings: { insert_deduplication_token: batchToken(values.map((v) => ({ id: v.outcome_id }))), insert_deduplicate: 1 },
        });
      } catch (err) {
        throw classified(err);
      }
    },

    /** Stored outcomes per decision (the bound admit() checks): calls by provider, business outcomes. */
    async counts(decisionIds: readonly string[]): Promise<Map<string, TStoredOutcomeCounts>> {
      const out = new Map<string, TStoredOutcomeCounts>();
      if (decisionIds.length === 0) return out;
      // Distinct outcome ids rather than FINAL: as exact for a row a replay wrote twice, without
      // merging at read time. UUIDs come back as text; an alias named like the column would
      // replace it in WHERE too.
      const raw = await rows<{ decision_id: string; kind: "call" | "business"; call_provider: string | null; n: string }>(
        `SELECT decision_id, kind, if(kind = 'call', provider, NULL) AS call_provider, uniqExact(outcome_id) AS n
           FROM outcome WHERE decision_id IN {ids:Array(UUID)} AND reported_at >= {lo:DateTime64(3)}
          GROUP BY decision_id, kind, call_provider`,
        { ids: decisionIds, lo: reportedFloor(decisionIds) },
      );
      for (const r of raw) {
        const c = out.get(r.decision_id) ?? { calls: {}, business: 0 };
        if (r.kind === "call") c.calls[r.call_provider!] = Number(r.n);
        else c.business += Number(r.n);
        out.set(r.decision_id, c);
      }
      return out;
    },

    /** One decision's outcomes, oldest first (the drilldown, GET /decisions/:id). */
    async list(decisionId: string): Promise<TStoredOutcome[]> {
      return (await outcomesOf([decisionId])).map(toStored);
    },

    /** Each decision's latest business outcome and the latest call of its given provider (the listing, the shadow view). */
    async latest(decisions: readonly { id: string; provider: string | null }[]): Promise<Map<string, TLatestOutcome>> {
      const provider = new Map(decisions.map((d) => [d.id, d.provider]));
      const out = new Map<string, TLatestOutcome>();
      // Oldest first: a later outcome overwrites an earlier one.
      for (const r of await outcomesOf([...provider.keys()])) {
        const l = out.get(r.decision_id) ?? { completed: null, failureStage: null, callStatus: null, callError: null };
        if (r.kind === "business") {
          l.completed = r.completed;
          l.failureStage = r.failure_stage;
        } else if (r.provider === provider.get(r.decision_id)) {
          l.callStatus = r.status;
          l.callError = r.error_class;
        }
        out.set(r.decision_id, l);
      }
      return out;
    },
  };
}

export type ClickHouseOutcomes = ReturnType<typeof createClickHouseOutcomes>;
