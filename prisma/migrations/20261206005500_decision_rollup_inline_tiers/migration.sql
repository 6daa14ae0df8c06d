-- Written by hand: no table changes.
--
-- The decision log's insert adds decision_rollup's 10-minute and hour tiers and the served
-- minutes itself, from the batch's cells, instead of leaving them to the statement triggers on
-- decision_rollup: the triggers ran per group-commit transaction (an INSERT and an UPDATE
-- trigger, each a PL/pgSQL call over transition tables), a cost that did not shrink with the
-- batch and dominated Postgres's work per decision at low rates. Every other writer (replay,
-- clients' count reports, ClickHouse mode's claims, the rebuild) keeps the triggers: they skip
-- only a statement run while the transaction-local flag switchyard.rollup_tiers is 'inline',
-- which the insert sets for its own statement and clears after it.
--
-- The served-minutes helpers become PL/pgSQL loops over 60 slots: as SQL functions with an
-- aggregate they could not be inlined and started an executor for every row they touched.

CREATE OR REPLACE FUNCTION decision_minutes_dense(offsets int[], counts bigint[]) RETURNS int[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE r int[] := array_fill(0, ARRAY[60]);
BEGIN
  FOR i IN 1..coalesce(cardinality(offsets), 0) LOOP
    r[offsets[i] + 1] := r[offsets[i] + 1] + counts[i];
  END LOOP;
  RETURN r;
END $$;

-- a and b are both 60 slots long (decision_minutes_dense's); a NULL a stays NULL as before.
CREATE OR REPLACE FUNCTION decision_minutes_add(a int[], b int[]) RETURNS int[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF a IS NULL OR b IS NULL THEN
    RETURN NULL;
  END IF;
  FOR i IN 1..60 LOOP
    IF b[i] <> 0 THEN
      a[i] := a[i] + b[i];
    END IF;
  END LOOP;
  RETURN a;
END $$;

DROP TRIGGER decision_rollup_tier_insert ON decision_rollup;
DROP TRIGGER decision_rollup_tier_update ON decision_rollup;
DROP TRIGGER decision_rollup_tier_delete ON decision_rollup;
CREATE TRIGGER decision_rollup_tier_insert AFTER INSERT ON decision_rollup
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
  WHEN (current_setting('switchyard.rollup_tiers', true) IS DISTINCT FROM 'inline') EXECUTE FUNCTION decision_rollup_tier_apply();
CREATE TRIGGER decision_rollup_tier_update AFTER UPDATE ON decision_rollup
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
  WHEN (current_setting('switchyard.rollup_tiers', true) IS DISTINCT FROM 'inline') EXECUTE FUNCTION decision_rollup_tier_apply();
CREATE TRIGGER decision_rollup_tier_delete AFTER DELETE ON decision_rollup
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
  WHEN (current_setting('switchyard.rollup_tiers', true) IS DISTINCT FROM 'inline') EXECUTE FUNCTION decision_rollup_tier_apply();

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
  -- This statement adds the tiers itself, in the same order as the triggers would (decision_rollup,
  -- then its tiers, each in key order); they skip it while the flag is set.
  PERFORM set_config('switchyard.rollup_tiers', 'inline', true);
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
  -- The batch's minute cells, once: decision_rollup and its two tiers are all added from them.
  cells AS MATERIALIZED (
    SELECT date_bin('1 minute', t.created_at, timestamptz 'epoch') AS minute, t.operation, t.region,
           coalesce(t.selected_provider, '') AS selected_provider, t.reason_code, coalesce(t.policy_version, '') AS policy_version,
           CASE WHEN t.shadow_agrees IS NULL THEN 'none' WHEN t.shadow_agrees THEN 'agree' ELSE 'disagree' END AS shadow,
           t.stale, t.degraded, t.source, coalesce(t.shadow_pick, '') AS shadow_pick, count(*) AS n
      FROM ins JOIN input t ON t.id = ins.id
     WHERE t.counted
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
  SELECT e.input_id, e.id, e.body FROM existing e;
  PERFORM set_config('switchyard.rollup_tiers', '', true);
END $$;

