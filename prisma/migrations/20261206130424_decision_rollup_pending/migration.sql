-- Decide's transaction no longer upserts decision_rollup, its two tiers and
-- decision_served_minutes: three INSERT ... ON CONFLICT statements, run for every group commit
-- however few rows it held, were about half of Postgres's work per transaction at low rates. It
-- inserts its batch's cells into decision_rollup_pending instead, and decision_rollup_roll()
-- moves them into the rollups, a second's worth in one transaction. Readers count the pending
-- cells with the rollups (lib/dataplane/decision-log/counts.ts), so counts stay exact.
-- The table itself is Prisma's (above).

-- CreateTable
CREATE TABLE "decision_rollup_pending" (
    "operation" TEXT NOT NULL,
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "id" BIGSERIAL NOT NULL,
    "region" TEXT NOT NULL,
    "selected_provider" TEXT NOT NULL,
    "reason_code" TEXT NOT NULL,
    "policy_version" TEXT NOT NULL,
    "shadow" TEXT NOT NULL,
    "stale" BOOLEAN NOT NULL,
    "degraded" BOOLEAN NOT NULL,
    "source" TEXT NOT NULL,
    "shadow_pick" TEXT NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "decision_rollup_pending_pkey" PRIMARY KEY ("operation","minute","id")
);

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
  -- The batch's minute cells, for decision_rollup_roll to add to the rollups.
  pending AS (
    INSERT INTO decision_rollup_pending (minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count)
    SELECT date_bin('1 minute', t.created_at, timestamptz 'epoch'), t.operation, t.region, coalesce(t.selected_provider, ''), t.reason_code,
           coalesce(t.policy_version, ''), CASE WHEN t.shadow_agrees IS NULL THEN 'none' WHEN t.shadow_agrees THEN 'agree' ELSE 'disagree' END,
           t.stale, t.degraded, t.source, coalesce(t.shadow_pick, ''), count(*)
      FROM ins JOIN input t ON t.id = ins.id
     WHERE t.counted
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
  )
  SELECT e.input_id, e.id, e.body FROM existing e;
END $$;

-- Moves every pending cell into decision_rollup, its tiers and decision_served_minutes in one
-- transaction (so a reader sees each cell in exactly one place), adding them in key order as the
-- triggers would, which skip this statement (the flag). One roller at a time: a caller that does
-- not get the lock (0x53594452, "SYDR") returns -1 and leaves the cells to the one that has it.
CREATE FUNCTION decision_rollup_roll() RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE n bigint;
BEGIN
  IF NOT pg_try_advisory_xact_lock(1398359122) THEN
    RETURN -1;
  END IF;
  PERFORM set_config('switchyard.rollup_tiers', 'inline', true);
  WITH moved AS (
    DELETE FROM decision_rollup_pending
    RETURNING minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count
  ),
  cells AS MATERIALIZED (
    SELECT minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, sum(count)::bigint AS n
      FROM moved
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
  ),
  rolled AS (
    INSERT INTO decision_rollup (minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count)
    SELECT c.minute, c.operation, c.region, c.selected_provider, c.reason_code, c.policy_version, c.shadow, c.stale, c.degraded, c.source, c.shadow_pick, c.n
      FROM cells c
     ORDER BY 2, 3, 1, 4, 5, 6, 7, 8, 9, 10, 11
    ON CONFLICT (operation, region, minute, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick)
      DO UPDATE SET count = decision_rollup.count + excluded.count
  ),
  tier AS (
    INSERT INTO decision_rollup_tier (minutes, start, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count)
    SELECT w.m, date_bin(w.m * interval '1 minute', c.minute, timestamptz 'epoch'), c.operation, c.region, c.selected_provider, c.reason_code, c.policy_version, c.shadow, c.stale, c.degraded, c.source, c.shadow_pick, sum(c.n)
      FROM cells c CROSS JOIN (VALUES (10), (60)) AS w(m)
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
     ORDER BY 3, 4, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12
    ON CONFLICT (operation, region, minutes, start, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick)
      DO UPDATE SET count = decision_rollup_tier.count + excluded.count
  ),
  served AS (
    INSERT INTO decision_served_minutes (operation, hour, region, selected_provider, count, minutes)
    SELECT c.operation, date_bin('1 hour', c.minute, timestamptz 'epoch'), c.region, c.selected_provider, sum(c.n),
           decision_minutes_dense(array_agg(((extract(epoch FROM c.minute)::bigint / 60) % 60)::int), array_agg(c.n))
      FROM cells c
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 3, 4
    ON CONFLICT (operation, hour, region, selected_provider)
      DO UPDATE SET count = decision_served_minutes.count + excluded.count, minutes = decision_minutes_add(decision_served_minutes.minutes, excluded.minutes)
  )
  SELECT count(*) INTO n FROM cells;
  PERFORM set_config('switchyard.rollup_tiers', '', true);
  RETURN n;
END $$;

-- The rebuild recounts the server's rows of [lo, hi) from the decision table: their pending
-- cells go too, or they would be counted twice.
CREATE OR REPLACE FUNCTION decision_rollup_rebuild(lo timestamptz, hi timestamptz) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
DECLARE n bigint;
BEGIN
  DELETE FROM decision_rollup_pending WHERE minute >= date_bin('1 minute', lo, timestamptz 'epoch') AND minute < hi AND source = 'server';
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
