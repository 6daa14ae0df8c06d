-- Edited by hand: the tables are Prisma's; the functions below are written by hand.
--
-- decision_rollup counts decisions per minute and dimension. The decision log adds each batch's
-- rows in the statement that inserts them, counting only the rows actually inserted (a replayed
-- spool segment, or a decision already logged for the same request, adds nothing), so the counts
-- are exact. Rows of client decisions whose counts arrive in the client's count reports
-- (counted = false) are stored but not counted here. Rollup rows are upserted in key order, so two
-- transactions adding to the same minutes wait for each other rather than deadlock.

-- AlterTable
ALTER TABLE "decision" ADD COLUMN     "source" TEXT NOT NULL DEFAULT 'server';

-- CreateTable
CREATE TABLE "decision_rollup" (
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "operation" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "selected_provider" TEXT NOT NULL,
    "reason_code" TEXT NOT NULL,
    "policy_version" TEXT NOT NULL,
    "shadow" TEXT NOT NULL,
    "stale" BOOLEAN NOT NULL,
    "degraded" BOOLEAN NOT NULL,
    "source" TEXT NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "decision_rollup_pkey" PRIMARY KEY ("operation","region","minute","selected_provider","reason_code","policy_version","shadow","stale","degraded","source")
);

-- CreateTable
CREATE TABLE "local_count_report" (
    "client_instance" TEXT NOT NULL,
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "batch_id" TEXT NOT NULL,
    "api_key_id" TEXT,
    "count" BIGINT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "local_count_report_pkey" PRIMARY KEY ("client_instance","minute","batch_id")
);

-- CreateIndex
CREATE INDEX "decision_rollup_operation_minute_idx" ON "decision_rollup"("operation", "minute");

-- CreateIndex
CREATE INDEX "local_count_report_received_at_idx" ON "local_count_report"("received_at");


-- Adds rows of decision to decision_rollup: used by the backfill below and by the scale seed
-- after its bulk load (the same aggregation as the insert functions').
CREATE FUNCTION decision_rollup_rebuild(lo timestamptz, hi timestamptz) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE n bigint;
BEGIN
  DELETE FROM decision_rollup WHERE minute >= date_bin('1 minute', lo, timestamptz 'epoch') AND minute < hi;
  INSERT INTO decision_rollup (minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, count)
    SELECT date_bin('1 minute', d.created_at, timestamptz 'epoch'), d.operation, d.region, coalesce(d.selected_provider, ''), d.reason_code, coalesce(d.policy_version, ''),
           CASE WHEN d.shadow_agrees IS NULL THEN 'none' WHEN d.shadow_agrees THEN 'agree' ELSE 'disagree' END,
           d.stale, d.degraded, d.source, count(*)
      FROM decision d
     WHERE d.created_at >= date_bin('1 minute', lo, timestamptz 'epoch') AND d.created_at < hi
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
     ORDER BY 2, 3, 1, 4, 5, 6, 7, 8, 9, 10;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;

CREATE FUNCTION decision_log_insert_rolled(
    ids uuid[], created_ats timestamptz[], operations text[], regions text[], request_ids text[],
    policy_versions text[], shadow_versions text[], selected_providers text[], reason_codes text[], shadow_picks text[],
    shadow_agrees_ bool[], score_margins float8[], stales bool[], metric_ages_ms int[], fallback_actions text[],
    degradeds bool[], durabilities text[], instance_ids text[], api_key_ids text[], offered_providers_ text[],
    sources text[], counteds bool[], candidates_ids uuid[], records text[],
    window_ms bigint, lo timestamptz, hi timestamptz, list_ids uuid[], list_days date[], lists text[])
RETURNS TABLE (input_id uuid, id uuid, body text)
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  -- Rows for the same (operation, request_id, api_key_id) arriving at two instances at once are
  -- serialised here; the insert below takes a fresh snapshot after the locks are granted.
  PERFORM pg_advisory_xact_lock(k) FROM (
    SELECT DISTINCT hashtextextended(b.operation || chr(31) || b.request_id || chr(31) || coalesce(b.api_key_id, ''), 0) AS k
      FROM unnest(operations, request_ids, api_key_ids) AS b(operation, request_id, api_key_id) ORDER BY 1) s;
  IF cardinality(list_ids) > 0 THEN
    INSERT INTO decision_candidates (id, day, body)
      SELECT l.id, l.day, l.body::json FROM unnest(list_ids, list_days, lists) AS l(id, day, body) ORDER BY 1, 2
      ON CONFLICT DO NOTHING;
  END IF;
  RETURN QUERY
  WITH input AS (
    SELECT * FROM unnest(ids, created_ats, operations, regions, request_ids, policy_versions, shadow_versions,
        selected_providers, reason_codes, shadow_picks, shadow_agrees_, score_margins, stales, metric_ages_ms,
        fallback_actions, degradeds, durabilities, instance_ids, api_key_ids, offered_providers_, sources, counteds, candidates_ids, records)
      AS t(id, created_at, operation, region, request_id, policy_version, shadow_version, selected_provider, reason_code,
           shadow_pick, shadow_agrees, score_margin, stale, metric_age_ms, fallback_action, degraded, durability, instance_id,
           api_key_id, offered_providers, source, counted, candidates_id, record)
  ),
  existing AS (
    SELECT i.id AS input_id, e.id, e.body
      FROM input i
      CROSS JOIN LATERAL (
        SELECT d.id, decision_record_text(d.record, d.candidates_id, d.created_at) AS body FROM decision d
         WHERE d.operation = i.operation AND d.request_id = i.request_id
           AND d.api_key_id IS NOT DISTINCT FROM i.api_key_id
           AND d.created_at > i.created_at - window_ms * interval '1 millisecond'
           AND d.created_at BETWEEN lo AND hi
         ORDER BY d.operation, d.request_id, d.created_at LIMIT 1) e
  ),
  ins AS (
    INSERT INTO decision (id, created_at, operation, region, request_id, policy_version, shadow_version, selected_provider,
                          reason_code, shadow_pick, shadow_agrees, score_margin, stale, metric_age_ms, fallback_action, degraded,
                          record, candidates_id, durability, instance_id, api_key_id, offered_providers, source)
    SELECT t.id, t.created_at, t.operation, t.region, t.request_id, t.policy_version, t.shadow_version, t.selected_provider,
           t.reason_code, t.shadow_pick, t.shadow_agrees, t.score_margin, t.stale, t.metric_age_ms, t.fallback_action, t.degraded,
           t.record::json, t.candidates_id, t.durability, t.instance_id, t.api_key_id, t.offered_providers, t.source
      FROM input t WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE e.input_id = t.id)
    RETURNING decision.id
  ),
  rolled AS (
    INSERT INTO decision_rollup (minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, count)
    SELECT date_bin('1 minute', t.created_at, timestamptz 'epoch'), t.operation, t.region, coalesce(t.selected_provider, ''), t.reason_code, coalesce(t.policy_version, ''),
           CASE WHEN t.shadow_agrees IS NULL THEN 'none' WHEN t.shadow_agrees THEN 'agree' ELSE 'disagree' END,
           t.stale, t.degraded, t.source, count(*)
      FROM ins JOIN input t ON t.id = ins.id
     WHERE t.counted
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
     ORDER BY 2, 3, 1, 4, 5, 6, 7, 8, 9, 10
    ON CONFLICT (operation, region, minute, selected_provider, reason_code, policy_version, shadow, stale, degraded, source)
      DO UPDATE SET count = decision_rollup.count + excluded.count
  )
  SELECT e.input_id, e.id, e.body FROM existing e;
END $$;

-- The previous release's function, still called by its instances while this one rolls out: the
-- same insert, now counted (every row it writes is a server's or an unreported client's decision).
CREATE OR REPLACE FUNCTION decision_log_insert_keyed(
    ids uuid[], created_ats timestamptz[], operations text[], regions text[], request_ids text[],
    policy_versions text[], shadow_versions text[], selected_providers text[], reason_codes text[], shadow_picks text[],
    shadow_agrees_ bool[], score_margins float8[], stales bool[], metric_ages_ms int[], fallback_actions text[],
    degradeds bool[], durabilities text[], instance_ids text[], api_key_ids text[], offered_providers_ text[],
    candidates_ids uuid[], records text[],
    window_ms bigint, lo timestamptz, hi timestamptz, list_ids uuid[], list_days date[], lists text[])
RETURNS TABLE (input_id uuid, id uuid, body text)
LANGUAGE sql VOLATILE AS $$
  SELECT * FROM decision_log_insert_rolled(ids, created_ats, operations, regions, request_ids, policy_versions, shadow_versions,
    selected_providers, reason_codes, shadow_picks, shadow_agrees_, score_margins, stales, metric_ages_ms, fallback_actions,
    degradeds, durabilities, instance_ids, api_key_ids, offered_providers_,
    array_fill('server'::text, ARRAY[cardinality(ids)]), array_fill(true, ARRAY[cardinality(ids)]),
    candidates_ids, records, window_ms, lo, hi, list_ids, list_days, lists)
$$;

-- Backfill: every decision already logged, counted once.
SELECT decision_rollup_rebuild('-infinity', 'infinity');
