-- Edited by hand: the table is Prisma's; the functions are written by hand.
--
-- decision_served_minutes: per hour, region and selected provider, each minute's decisions as a
-- 60-entry array. What-if replays recorded traffic minute by minute; from the minute cells a week
-- is every cell of 10,080 minutes (more per minute as traffic grows), from here it is 168 rows
-- per (region, provider). decision_rollup_tier_apply now keeps this table too, from the same
-- statement's change to decision_rollup, in the same transaction: exact, never double-counted.

-- CreateTable
CREATE TABLE "decision_served_minutes" (
    "operation" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "selected_provider" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "count" BIGINT NOT NULL,
    "minutes" INTEGER[],

    CONSTRAINT "decision_served_minutes_pkey" PRIMARY KEY ("operation","hour","region","selected_provider")
);

-- A 60-entry array of per-minute sums from (minute of the hour, count) pairs.
CREATE FUNCTION decision_minutes_dense(offsets int[], counts bigint[]) RETURNS int[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_agg(coalesce(s.n, 0)::int ORDER BY g)
    FROM generate_series(0, 59) AS g
    LEFT JOIN (SELECT o, sum(n) AS n FROM unnest(offsets, counts) AS u(o, n) GROUP BY o) s ON s.o = g
$$;

-- Two per-minute arrays added entry by entry.
CREATE FUNCTION decision_minutes_add(a int[], b int[]) RETURNS int[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_agg(x + y ORDER BY i) FROM unnest(a, b) WITH ORDINALITY AS u(x, y, i)
$$;

-- As before (20261205213651_decision_rollup_tiers), now adding each statement's change to
-- decision_served_minutes as well. Every table's cells are upserted in its key order, and the
-- tables always in the same order, so concurrent writers wait rather than deadlock.
CREATE OR REPLACE FUNCTION decision_rollup_tier_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH delta AS (SELECT minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count AS n FROM new_rows),
    tier AS (
      INSERT INTO decision_rollup_tier (minutes, start, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count)
      SELECT w.m, date_bin(w.m * interval '1 minute', c.minute, timestamptz 'epoch'), c.operation, c.region, c.selected_provider, c.reason_code, c.policy_version, c.shadow, c.stale, c.degraded, c.source, c.shadow_pick, sum(c.n)
        FROM delta c CROSS JOIN (VALUES (10), (60)) AS w(m)
       GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
      HAVING sum(c.n) <> 0
       ORDER BY 3, 4, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12
      ON CONFLICT (operation, region, minutes, start, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick) DO UPDATE SET count = decision_rollup_tier.count + excluded.count)
    INSERT INTO decision_served_minutes (operation, hour, region, selected_provider, count, minutes)
    SELECT c.operation, date_bin('1 hour', c.minute, timestamptz 'epoch'), c.region, c.selected_provider, sum(c.n),
           decision_minutes_dense(array_agg(((extract(epoch FROM c.minute)::bigint / 60) % 60)::int), array_agg(c.n))
      FROM delta c
     GROUP BY 1, 2, 3, 4
    HAVING bool_or(c.n <> 0)
     ORDER BY 1, 2, 3, 4
    ON CONFLICT (operation, hour, region, selected_provider)
      DO UPDATE SET count = decision_served_minutes.count + excluded.count, minutes = decision_minutes_add(decision_served_minutes.minutes, excluded.minutes);
  ELSIF TG_OP = 'UPDATE' THEN
    WITH delta AS (SELECT minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count AS n FROM new_rows UNION ALL SELECT minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, -count AS n FROM old_rows),
    tier AS (
      INSERT INTO decision_rollup_tier (minutes, start, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count)
      SELECT w.m, date_bin(w.m * interval '1 minute', c.minute, timestamptz 'epoch'), c.operation, c.region, c.selected_provider, c.reason_code, c.policy_version, c.shadow, c.stale, c.degraded, c.source, c.shadow_pick, sum(c.n)
        FROM delta c CROSS JOIN (VALUES (10), (60)) AS w(m)
       GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
      HAVING sum(c.n) <> 0
       ORDER BY 3, 4, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12
      ON CONFLICT (operation, region, minutes, start, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick) DO UPDATE SET count = decision_rollup_tier.count + excluded.count)
    INSERT INTO decision_served_minutes (operation, hour, region, selected_provider, count, minutes)
    SELECT c.operation, date_bin('1 hour', c.minute, timestamptz 'epoch'), c.region, c.selected_provider, sum(c.n),
           decision_minutes_dense(array_agg(((extract(epoch FROM c.minute)::bigint / 60) % 60)::int), array_agg(c.n))
      FROM delta c
     GROUP BY 1, 2, 3, 4
    HAVING bool_or(c.n <> 0)
     ORDER BY 1, 2, 3, 4
    ON CONFLICT (operation, hour, region, selected_provider)
      DO UPDATE SET count = decision_served_minutes.count + excluded.count, minutes = decision_minutes_add(decision_served_minutes.minutes, excluded.minutes);
    -- No empty cells left by a delete (the rebuild deletes before it adds): the rows have none.
    DELETE FROM decision_rollup_tier t
     USING (SELECT DISTINCT c.operation, c.region, w.m, date_bin(w.m * interval '1 minute', c.minute, timestamptz 'epoch') AS start
              FROM old_rows c CROSS JOIN (VALUES (10), (60)) AS w(m)) k
     WHERE t.operation = k.operation AND t.region = k.region AND t.minutes = k.m AND t.start = k.start AND t.count = 0;
    DELETE FROM decision_served_minutes t
     USING (SELECT DISTINCT c.operation, date_bin('1 hour', c.minute, timestamptz 'epoch') AS hour FROM old_rows c) k
     WHERE t.operation = k.operation AND t.hour = k.hour AND t.count = 0;
  ELSE
    WITH delta AS (SELECT minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, -count AS n FROM old_rows),
    tier AS (
      INSERT INTO decision_rollup_tier (minutes, start, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count)
      SELECT w.m, date_bin(w.m * interval '1 minute', c.minute, timestamptz 'epoch'), c.operation, c.region, c.selected_provider, c.reason_code, c.policy_version, c.shadow, c.stale, c.degraded, c.source, c.shadow_pick, sum(c.n)
        FROM delta c CROSS JOIN (VALUES (10), (60)) AS w(m)
       GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
      HAVING sum(c.n) <> 0
       ORDER BY 3, 4, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12
      ON CONFLICT (operation, region, minutes, start, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick) DO UPDATE SET count = decision_rollup_tier.count + excluded.count)
    INSERT INTO decision_served_minutes (operation, hour, region, selected_provider, count, minutes)
    SELECT c.operation, date_bin('1 hour', c.minute, timestamptz 'epoch'), c.region, c.selected_provider, sum(c.n),
           decision_minutes_dense(array_agg(((extract(epoch FROM c.minute)::bigint / 60) % 60)::int), array_agg(c.n))
      FROM delta c
     GROUP BY 1, 2, 3, 4
    HAVING bool_or(c.n <> 0)
     ORDER BY 1, 2, 3, 4
    ON CONFLICT (operation, hour, region, selected_provider)
      DO UPDATE SET count = decision_served_minutes.count + excluded.count, minutes = decision_minutes_add(decision_served_minutes.minutes, excluded.minutes);
    -- No empty cells left by a delete (the rebuild deletes before it adds): the rows have none.
    DELETE FROM decision_rollup_tier t
     USING (SELECT DISTINCT c.operation, c.region, w.m, date_bin(w.m * interval '1 minute', c.minute, timestamptz 'epoch') AS start
              FROM old_rows c CROSS JOIN (VALUES (10), (60)) AS w(m)) k
     WHERE t.operation = k.operation AND t.region = k.region AND t.minutes = k.m AND t.start = k.start AND t.count = 0;
    DELETE FROM decision_served_minutes t
     USING (SELECT DISTINCT c.operation, date_bin('1 hour', c.minute, timestamptz 'epoch') AS hour FROM old_rows c) k
     WHERE t.operation = k.operation AND t.hour = k.hour AND t.count = 0;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION decision_rollup_tier_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE decision_rollup_tier, decision_served_minutes;
  RETURN NULL;
END $$;

-- The cells so far, under the lock that keeps writers out until the new function is in place.
LOCK TABLE decision_rollup IN SHARE ROW EXCLUSIVE MODE;

INSERT INTO decision_served_minutes (operation, hour, region, selected_provider, count, minutes)
SELECT c.operation, date_bin('1 hour', c.minute, timestamptz 'epoch'), c.region, c.selected_provider, sum(c.count),
       decision_minutes_dense(array_agg(((extract(epoch FROM c.minute)::bigint / 60) % 60)::int), array_agg(c.count))
  FROM decision_rollup c
 GROUP BY 1, 2, 3, 4;

ANALYZE decision_served_minutes;
