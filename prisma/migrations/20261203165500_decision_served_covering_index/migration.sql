-- The overview's served shares count decisions per (bucket, selected_provider) over a range of one
-- (operation, region). With selected_provider only in the heap, every decision row of the range
-- was read (rows are wide: the record is inline). Appending selected_provider to the existing index
-- lets the count be an index-only scan, at the cost of a slightly wider index and no extra index
-- insert per decision; queries on the (operation, region, created_at) prefix use it as before.
DROP INDEX "decision_operation_region_created_at_idx";
CREATE INDEX "decision_operation_region_created_at_selected_provider_idx" ON "decision"("operation", "region", "created_at", "selected_provider");
