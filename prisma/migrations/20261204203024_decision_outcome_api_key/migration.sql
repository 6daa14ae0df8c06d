-- Edited by hand: the columns are Prisma's; the function below is written by hand like its
-- predecessor decision_log_insert_columns (20261202120000_decision_log_columns), which stays for
-- instances of the previous release still running while this one rolls out.
--
-- Each decision carries the principal that asked (api_key_id) and the providers outcomes may name
-- (offered_providers). A requestId is the calling key's own: the idempotency probe and its
-- advisory lock take api_key_id too (IS NOT DISTINCT FROM, so rows logged before it, null, match
-- only each other), and the probe still runs on the (operation, request_id, created_at) index,
-- api_key_id being checked on the row it finds.

-- AlterTable
ALTER TABLE "business_outcome" ADD COLUMN     "api_key_id" TEXT;

-- AlterTable
ALTER TABLE "decision" ADD COLUMN     "api_key_id" TEXT,
ADD COLUMN     "offered_providers" TEXT;

-- AlterTable
ALTER TABLE "provider_call_outcome" ADD COLUMN     "api_key_id" TEXT;

CREATE FUNCTION decision_log_insert_keyed(
    ids uuid[], created_ats timestamptz[], operations text[], regions text[], request_ids text[],
    policy_versions text[], shadow_versions text[], selected_providers text[], reason_codes text[], shadow_picks text[],
    shadow_agrees_ bool[], score_margins float8[], stales bool[], metric_ages_ms int[], fallback_actions text[],
    degradeds bool[], durabilities text[], instance_ids text[], api_key_ids text[], offered_providers_ text[],
    candidates_ids uuid[], records text[],
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
        fallback_actions, degradeds, durabilities, instance_ids, api_key_ids, offered_providers_, candidates_ids, records)
      AS t(id, created_at, operation, region, request_id, policy_version, shadow_version, selected_provider, reason_code,
           shadow_pick, shadow_agrees, score_margin, stale, metric_age_ms, fallback_action, degraded, durability, instance_id,
           api_key_id, offered_providers, candidates_id, record)
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
                          record, candidates_id, durability, instance_id, api_key_id, offered_providers)
    SELECT t.id, t.created_at, t.operation, t.region, t.request_id, t.policy_version, t.shadow_version, t.selected_provider,
           t.reason_code, t.shadow_pick, t.shadow_agrees, t.score_margin, t.stale, t.metric_age_ms, t.fallback_action, t.degraded,
           t.record::json, t.candidates_id, t.durability, t.instance_id, t.api_key_id, t.offered_providers
      FROM input t WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE e.input_id = t.id)
  )
  SELECT e.input_id, e.id, e.body FROM existing e;
END $$;
