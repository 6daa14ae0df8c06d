-- Edited by hand: the column and key are Prisma's; the functions are written by hand.
--
-- decision_rollup keeps the shadow policy's pick too (shadow_pick, '' for none), so the shadow
-- page's disagreements grouped by provider pair are read from the rollup like its agreement
-- series. The insert and the rebuild add it (cells are still upserted in one order by every
-- writer, now with shadow_pick last), and the cells of Switchyard's own decisions are rebuilt from
-- the rows; clients' cells (their count reports) keep '' until their next reports.

-- AlterTable
ALTER TABLE "decision_rollup" DROP CONSTRAINT "decision_rollup_pkey",
ADD COLUMN     "shadow_pick" TEXT NOT NULL DEFAULT '',
ADD CONSTRAINT "decision_rollup_pkey" PRIMARY KEY ("operation", "region", "minute", "selected_provider", "reason_code", "policy_version", "shadow", "stale", "degraded", "source", "shadow_pick");


CREATE OR REPLACE FUNCTION decision_log_insert_rolled(
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
    INSERT INTO decision_rollup (minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count)
    SELECT date_bin('1 minute', t.created_at, timestamptz 'epoch'), t.operation, t.region, coalesce(t.selected_provider, ''), t.reason_code, coalesce(t.policy_version, ''),
           CASE WHEN t.shadow_agrees IS NULL THEN 'none' WHEN t.shadow_agrees THEN 'agree' ELSE 'disagree' END,
           t.stale, t.degraded, t.source, coalesce(t.shadow_pick, ''), count(*)
      FROM ins JOIN input t ON t.id = ins.id
     WHERE t.counted
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
     ORDER BY 2, 3, 1, 4, 5, 6, 7, 8, 9, 10, 11
    ON CONFLICT (operation, region, minute, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick)
      DO UPDATE SET count = decision_rollup.count + excluded.count
  )
  SELECT e.input_id, e.id, e.body FROM existing e;
END $$;

-- The rollup's cells of Switchyard's own decisions (source server) in [lo, hi), from the rows:
-- clients' local and fail-static cells come from their count reports, which the rows cannot
-- give back, so they are left as they are.
CREATE OR REPLACE FUNCTION decision_rollup_rebuild(lo timestamptz, hi timestamptz) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE n bigint;
BEGIN
  DELETE FROM decision_rollup WHERE minute >= date_bin('1 minute', lo, timestamptz 'epoch') AND minute < hi AND source = 'server';
  INSERT INTO decision_rollup (minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count)
    SELECT date_bin('1 minute', d.created_at, timestamptz 'epoch'), d.operation, d.region, coalesce(d.selected_provider, ''), d.reason_code, coalesce(d.policy_version, ''),
           CASE WHEN d.shadow_agrees IS NULL THEN 'none' WHEN d.shadow_agrees THEN 'agree' ELSE 'disagree' END,
           d.stale, d.degraded, d.source, coalesce(d.shadow_pick, ''), count(*)
      FROM decision d
     WHERE d.created_at >= date_bin('1 minute', lo, timestamptz 'epoch') AND d.created_at < hi AND d.source = 'server'
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
     ORDER BY 2, 3, 1, 4, 5, 6, 7, 8, 9, 10, 11;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;

SELECT decision_rollup_rebuild('-infinity', 'infinity');
