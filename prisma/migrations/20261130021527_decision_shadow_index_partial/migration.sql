-- The shadow view's index holds only decisions evaluated against a shadow version. As a full
-- index on (operation, created_at, ...) it also matched the idempotency probe of every decide
-- (operation = $1 and created_at in the window, ordered by created_at), and on a partition without
-- statistics the planner chose it over (operation, request_id, created_at): each probe then read
-- every decision of the operation in the window, about 0.4 ms per probe at 5,000 rows and growing
-- with traffic. A partial index cannot serve a query that does not imply its predicate.
DROP INDEX "decision_operation_created_at_shadow_agrees_idx";
CREATE INDEX "decision_operation_created_at_shadow_agrees_idx" ON "decision"("operation", "created_at", "shadow_agrees") WHERE "shadow_agrees" IS NOT NULL;
