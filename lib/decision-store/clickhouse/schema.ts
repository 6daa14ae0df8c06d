import type { ClickHouseClient } from "@clickhouse/client";
import { outcomeTableDdl, outcomeTtl } from "./outcomes";
import type { TRetention } from "./retention";

/**
 * Routine: a share-driven pick on fresh metrics, nothing pinned, killed, stale, degraded or
 * fallen back, and no shadow disagreement. Only these are thinned after the full-record days;
 * every decision that explains an incident (the rest) is kept until the end.
 */
const ROUTINE = `reason_code IN ('share_weighted', 'initial_share_primary', 'price_weighted', 'price_latency_penalty', 'weighted_round_robin', 'priority_failover')
    AND NOT stale AND NOT degraded AND fallback_action IS NULL AND ifNull(shadow_agrees, true)`;

/**
 * The decision table. Rows are immutable; ReplacingMergeTree over a key that ends in the id
 * folds the copy a replayed spool segment may add when its first insert did reach ClickHouse
 * (readers use FINAL), and insert_deduplication_token drops a batch sent twice outright
 * (non_replicated_deduplication_window: this table is not replicated; a Replicated* engine
 * deduplicates through Keeper). Daily partitions make retention a part drop. The key leads with
 * (operation, region, at): the console's listing filters on them and pages by time. A lookup by
 * id derives the time from the UUIDv7 (one partition, a narrow `at` range) and the bloom filter
 * skips the granules of other operations and regions in it; a projection by id would store
 * every row a second time.
 */
export function decisionTableDdl(r: TRetention): string {
  return `CREATE TABLE IF NOT EXISTS decision (
  id UUID,
  at DateTime64(3, 'UTC'),
  operation LowCardinality(String),
  region LowCardinality(String),
  request_id String,
  policy_version LowCardinality(Nullable(String)),
  shadow_version LowCardinality(Nullable(String)),
  selected_provider LowCardinality(Nullable(String)),
  reason_code LowCardinality(String),
  shadow_pick LowCardinality(Nullable(String)),
  shadow_agrees Nullable(Bool),
  score_margin Nullable(Float64),
  stale Bool,
  metric_age_ms Nullable(Int64),
  fallback_action LowCardinality(Nullable(String)),
  degraded Bool,
  durability LowCardinality(String),
  instance_id LowCardinality(String),
  api_key_id Nullable(String),
  offered_providers Nullable(String),
  source LowCardinality(String) DEFAULT 'server',
  record String CODEC(ZSTD(3)),
  routine Bool MATERIALIZED ${ROUTINE},
  INDEX id_bloom id TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = ReplacingMergeTree
PARTITION BY toDate(at)
ORDER BY (operation, region, at, id)
TTL toDateTime(at) + INTERVAL ${r.fullDays} DAY DELETE WHERE routine AND cityHash64(id) % 10000 >= ${r.routineSampleBasisPoints},
    toDateTime(at) + INTERVAL ${r.keepDays} DAY DELETE
SETTINGS non_replicated_deduplication_window = 10000`;
}

/** The tiers a table was last set to, kept in its comment so a start with unchanged settings alters nothing. */
const tiersComment = (r: TRetention) => `switchyard retention ${r.fullDays}/${r.keepDays}/${r.routineSampleBasisPoints}`;

/**
 * Creates the tables (decisions, outcomes) when missing and brings its TTL to the configured tiers when they changed
 * (ClickHouse then re-evaluates the TTL of every part, so only a changed setting pays for it).
 */
export async function ensureClickHouseSchema(client: ClickHouseClient, r: TRetention): Promise<void> {
  await client.command({ query: decisionTableDdl(r) });
  await client.command({ query: outcomeTableDdl(r) });
  // Added after the first release of this table: who made the decision (server, local, fail_static).
  await client.command({ query: "ALTER TABLE decision ADD COLUMN IF NOT EXISTS source LowCardinality(String) DEFAULT 'server' AFTER offered_providers" });
  const rs = await client.query({ query: "SELECT comment FROM system.tables WHERE database = currentDatabase() AND name = 'decision'", format: "JSONEachRow" });
  const [table] = await rs.json<{ comment: string }>();
  if (table?.comment === tiersComment(r)) return;
  const ttl = /TTL ([\s\S]*?)\nSETTINGS/.exec(decisionTableDdl(r))![1]!;
  await client.command({ query: `ALTER TABLE decision MODIFY TTL ${ttl}` });
  await client.command({ query: `ALTER TABLE outcome MODIFY TTL ${outcomeTtl(r)}` });
  await client.command({ query: `ALTER TABLE decision MODIFY COMMENT '${tiersComment(r)}'` });
}
