-- One round trip per decision-log batch. The writer used to send begin, the advisory locks, the
-- insert and commit as four statements; on a busy 2-core host each round trip cost several
-- milliseconds of scheduling, more than the insert itself. This function runs the same steps in
-- the single statement's implicit transaction. Being VOLATILE plpgsql, its insert takes a fresh
-- snapshot after the locks are granted, so it sees any decision another instance committed for
-- the same (operation, request_id) while this one waited.
CREATE FUNCTION decision_log_insert(batch json, window_ms bigint, lo timestamptz, hi timestamptz)
RETURNS TABLE (input_id uuid, id uuid, body text)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
BEGIN
  PERFORM pg_advisory_xact_lock(k) FROM (
    SELECT DISTINCT hashtextextended((b->>'operation') || chr(31) || (b->>'request_id'), 0) AS k
      FROM json_array_elements(batch) b ORDER BY 1) s;
  RETURN QUERY
  WITH input AS (
    SELECT * FROM json_to_recordset(batch) AS t(id uuid, created_at timestamptz, operation text, region text, request_id text,
      policy_version text, shadow_version text, selected_provider text, reason_code text, shadow_pick text, shadow_agrees bool,
      score_margin float8, stale bool, metric_age_ms int, fallback_action text, degraded bool, record json, durability text, instance_id text)
  ),
  existing AS (
    SELECT i.id AS input_id, e.id, e.body
      FROM input i
      CROSS JOIN LATERAL (
        SELECT d.id, d.record::text AS body FROM decision d
         WHERE d.operation = i.operation AND d.request_id = i.request_id
           AND d.created_at > i.created_at - window_ms * interval '1 millisecond'
           AND d.created_at BETWEEN lo AND hi
         ORDER BY d.created_at LIMIT 1) e
  ),
  ins AS (
    INSERT INTO decision (id, created_at, operation, region, request_id, policy_version, shadow_version, selected_provider,
                          reason_code, shadow_pick, shadow_agrees, score_margin, stale, metric_age_ms, fallback_action, degraded,
                          record, durability, instance_id)
    SELECT t.id, t.created_at, t.operation, t.region, t.request_id, t.policy_version, t.shadow_version, t.selected_provider,
           t.reason_code, t.shadow_pick, t.shadow_agrees, t.score_margin, t.stale, t.metric_age_ms, t.fallback_action, t.degraded,
           t.record, t.durability, t.instance_id
      FROM input t WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE e.input_id = t.id)
    ON CONFLICT DO NOTHING
  )
  SELECT e.input_id, e.id, e.body FROM existing e;
END $$;
