-- Edited by hand: decision_candidates is partitioned by day (Prisma cannot declare partitioning),
-- with the daily partitions created and dropped together with decision's by
-- lib/dataplane/decision-log/partitions.ts.
--
-- A decision's candidate list (gate outcomes, score contributions, probabilities) is about 90% of
-- its record, and consecutive decisions on one routing state have the same list. The writer now
-- stores a list once per day in decision_candidates, keyed by the hash of its text, and the
-- decision row's record with "candidates":null and candidates_id. Measured with bench:api: about
-- half of Postgres's CPU per decision was ingesting the 4-5 KB records.

-- AlterTable
ALTER TABLE "decision" ADD COLUMN     "candidates_id" UUID;

-- CreateTable
CREATE TABLE "decision_candidates" (
    "id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "body" JSON NOT NULL,

    CONSTRAINT "decision_candidates_pkey" PRIMARY KEY ("id","day")
) PARTITION BY RANGE ("day");

-- The record as the decide call answered it: the stored record with its list put back where
-- "candidates":null stands. That text is the first occurrence: the keys before candidates
-- (ids, operation, region, requestId, versions, strategy, selection, override) have no such key,
-- and inside a JSON string every quote is escaped, so the sequence cannot occur in a value.
CREATE FUNCTION decision_record_text(record json, candidates_id uuid, created_at timestamptz) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN candidates_id IS NULL THEN record::text ELSE coalesce(
    (SELECT overlay(record::text PLACING c.body::text FROM strpos(record::text, '"candidates":null') + 13 FOR 4)
       FROM decision_candidates c
      WHERE c.id = candidates_id AND c.day = (created_at AT TIME ZONE 'UTC')::date),
    record::text) END
$$;

-- The batch insert with the candidate lists the batch needs that the writer has not stored yet
-- (list_ids, list_days and lists, in parallel). They go in first, in key order, so two
-- transactions inserting the same lists wait for each other rather than deadlock.
DROP FUNCTION decision_log_insert(json, text[], bigint, timestamptz, timestamptz);

CREATE FUNCTION decision_log_insert(batch json, records text[], window_ms bigint, lo timestamptz, hi timestamptz,
                                    list_ids uuid[], list_days date[], lists text[])
RETURNS TABLE (input_id uuid, id uuid, body text)
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  -- Rows for the same (operation, request_id) arriving at two instances at once are serialised
  -- here; the insert below takes a fresh snapshot after the locks are granted.
  PERFORM pg_advisory_xact_lock(k) FROM (
    SELECT DISTINCT hashtextextended(b.operation || chr(31) || b.request_id, 0) AS k
      FROM json_to_recordset(batch) AS b(operation text, request_id text) ORDER BY 1) s;
  IF cardinality(list_ids) > 0 THEN
    INSERT INTO decision_candidates (id, day, body)
      SELECT l.id, l.day, l.body::json FROM unnest(list_ids, list_days, lists) AS l(id, day, body) ORDER BY 1, 2
      ON CONFLICT DO NOTHING;
  END IF;
  RETURN QUERY
  WITH input AS (
    SELECT * FROM ROWS FROM (
      json_to_recordset(batch) AS (id uuid, created_at timestamptz, operation text, region text, request_id text,
        policy_version text, shadow_version text, selected_provider text, reason_code text, shadow_pick text, shadow_agrees bool,
        score_margin float8, stale bool, metric_age_ms int, fallback_action text, degraded bool, durability text, instance_id text,
        candidates_id uuid),
      unnest(records)
    ) AS t(id, created_at, operation, region, request_id, policy_version, shadow_version, selected_provider, reason_code,
           shadow_pick, shadow_agrees, score_margin, stale, metric_age_ms, fallback_action, degraded, durability, instance_id,
           candidates_id, record)
  ),
  existing AS (
    SELECT i.id AS input_id, e.id, e.body
      FROM input i
      CROSS JOIN LATERAL (
        SELECT d.id, decision_record_text(d.record, d.candidates_id, d.created_at) AS body FROM decision d
         WHERE d.operation = i.operation AND d.request_id = i.request_id
           AND d.created_at > i.created_at - window_ms * interval '1 millisecond'
           AND d.created_at BETWEEN lo AND hi
         ORDER BY d.created_at LIMIT 1) e
  ),
  ins AS (
    INSERT INTO decision (id, created_at, operation, region, request_id, policy_version, shadow_version, selected_provider,
                          reason_code, shadow_pick, shadow_agrees, score_margin, stale, metric_age_ms, fallback_action, degraded,
                          record, candidates_id, durability, instance_id)
    SELECT t.id, t.created_at, t.operation, t.region, t.request_id, t.policy_version, t.shadow_version, t.selected_provider,
           t.reason_code, t.shadow_pick, t.shadow_agrees, t.score_margin, t.stale, t.metric_age_ms, t.fallback_action, t.degraded,
           t.record::json, t.candidates_id, t.durability, t.instance_id
      FROM input t WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE e.input_id = t.id)
  )
  SELECT e.input_id, e.id, e.body FROM existing e;
END $$;

-- Partitions for the days decision already has (later ones come with decision's).
DO $$
DECLARE
  part record;
  d date;
BEGIN
  FOR part IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
               WHERE i.inhparent = 'decision'::regclass AND c.relname ~ '^decision_p[0-9]{8}$' LOOP
    d := to_date(substr(part.relname, 11), 'YYYYMMDD');
    EXECUTE format('CREATE TABLE %I PARTITION OF decision_candidates FOR VALUES FROM (%L) TO (%L)',
                   'decision_candidates_p' || substr(part.relname, 11), d, d + 1);
  END LOOP;
END $$;
