-- Edited by hand: the table and index are Prisma's; the trigger functions are written by hand.
--
-- decision_rollup_tier holds decision_rollup's cells summed per 10 minutes and per hour, so a
-- range read costs its periods, not the cells of every minute (which grow with traffic: more
-- (provider, reason, shadow, ...) combinations show up in a busy minute). It is kept by triggers
-- on decision_rollup, so every writer (the decision log's insert and replay, ClickHouse mode's
-- claims, clients' count reports, the rebuild) updates it in its own statement and transaction:
-- exact by construction, never double-counted, and no writer needs to know about it.

-- CreateTable
CREATE TABLE "decision_rollup_tier" (
    "minutes" INTEGER NOT NULL,
    "start" TIMESTAMPTZ(3) NOT NULL,
    "operation" TEXT NOT NULL,
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

    CONSTRAINT "decision_rollup_tier_pkey" PRIMARY KEY ("operation","region","minutes","start","selected_provider","reason_code","policy_version","shadow","stale","degraded","source","shadow_pick")
);

-- CreateIndex
CREATE INDEX "decision_rollup_tier_operation_minutes_start_idx" ON "decision_rollup_tier"("operation", "minutes", "start");

-- Adds what a statement changed in decision_rollup (new counts minus old ones) to the periods'
-- cells, in key order like every rollup writer, so concurrent writers wait rather than deadlock.
-- One function for three triggers: each branch reads only its own trigger's transition tables.
CREATE FUNCTION decision_rollup_tier_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO decision_rollup_tier (minutes, start, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count)
    SELECT w.m, date_bin(w.m * interval '1 minute', c.minute, timestamptz 'epoch'), c.operation, c.region, c.selected_provider, c.reason_code, c.policy_version, c.shadow, c.stale, c.degraded, c.source, c.shadow_pick, sum(c.n)
      FROM (SELECT minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count AS n FROM new_rows) c CROSS JOIN (VALUES (10), (60)) AS w(m)
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
    HAVING sum(c.n) <> 0
     ORDER BY 3, 4, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12
    ON CONFLICT (operation, region, minutes, start, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick) DO UPDATE SET count = decision_rollup_tier.count + excluded.count;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO decision_rollup_tier (minutes, start, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count)
    SELECT w.m, date_bin(w.m * interval '1 minute', c.minute, timestamptz 'epoch'), c.operation, c.region, c.selected_provider, c.reason_code, c.policy_version, c.shadow, c.stale, c.degraded, c.source, c.shadow_pick, sum(c.n)
      FROM (SELECT minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count AS n FROM new_rows UNION ALL SELECT minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, -count AS n FROM old_rows) c CROSS JOIN (VALUES (10), (60)) AS w(m)
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
    HAVING sum(c.n) <> 0
     ORDER BY 3, 4, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12
    ON CONFLICT (operation, region, minutes, start, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick) DO UPDATE SET count = decision_rollup_tier.count + excluded.count;
    -- A period whose cells were all deleted (the rebuild deletes before it adds) holds no zero
    -- counts, so its groups read the same as the rows, which have none.
    DELETE FROM decision_rollup_tier t
     USING (SELECT DISTINCT c.operation, c.region, w.m, date_bin(w.m * interval '1 minute', c.minute, timestamptz 'epoch') AS start
              FROM old_rows c CROSS JOIN (VALUES (10), (60)) AS w(m)) k
     WHERE t.operation = k.operation AND t.region = k.region AND t.minutes = k.m AND t.start = k.start AND t.count = 0;
  ELSE
    INSERT INTO decision_rollup_tier (minutes, start, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count)
    SELECT w.m, date_bin(w.m * interval '1 minute', c.minute, timestamptz 'epoch'), c.operation, c.region, c.selected_provider, c.reason_code, c.policy_version, c.shadow, c.stale, c.degraded, c.source, c.shadow_pick, sum(c.n)
      FROM (SELECT minute, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, -count AS n FROM old_rows) c CROSS JOIN (VALUES (10), (60)) AS w(m)
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
    HAVING sum(c.n) <> 0
     ORDER BY 3, 4, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12
    ON CONFLICT (operation, region, minutes, start, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick) DO UPDATE SET count = decision_rollup_tier.count + excluded.count;
    -- A period whose cells were all deleted (the rebuild deletes before it adds) holds no zero
    -- counts, so its groups read the same as the rows, which have none.
    DELETE FROM decision_rollup_tier t
     USING (SELECT DISTINCT c.operation, c.region, w.m, date_bin(w.m * interval '1 minute', c.minute, timestamptz 'epoch') AS start
              FROM old_rows c CROSS JOIN (VALUES (10), (60)) AS w(m)) k
     WHERE t.operation = k.operation AND t.region = k.region AND t.minutes = k.m AND t.start = k.start AND t.count = 0;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION decision_rollup_tier_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE decision_rollup_tier;
  RETURN NULL;
END $$;

-- The cells so far, then the triggers, in this migration's transaction: the lock keeps writers
-- out until both are in place, so no change falls between them.
LOCK TABLE decision_rollup IN SHARE ROW EXCLUSIVE MODE;

INSERT INTO decision_rollup_tier (minutes, start, operation, region, selected_provider, reason_code, policy_version, shadow, stale, degraded, source, shadow_pick, count)
SELECT w.m, date_bin(w.m * interval '1 minute', c.minute, timestamptz 'epoch'), c.operation, c.region, c.selected_provider, c.reason_code, c.policy_version, c.shadow, c.stale, c.degraded, c.source, c.shadow_pick, sum(c.count)
  FROM decision_rollup c CROSS JOIN (VALUES (10), (60)) AS w(m)
 GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12;

CREATE TRIGGER decision_rollup_tier_insert AFTER INSERT ON decision_rollup
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION decision_rollup_tier_apply();
CREATE TRIGGER decision_rollup_tier_update AFTER UPDATE ON decision_rollup
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION decision_rollup_tier_apply();
CREATE TRIGGER decision_rollup_tier_delete AFTER DELETE ON decision_rollup
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION decision_rollup_tier_apply();
CREATE TRIGGER decision_rollup_tier_truncate AFTER TRUNCATE ON decision_rollup
  FOR EACH STATEMENT EXECUTE FUNCTION decision_rollup_tier_truncate();

-- The planner's statistics for the new table, so the first reads after the upgrade use its keys.
ANALYZE decision_rollup_tier;
