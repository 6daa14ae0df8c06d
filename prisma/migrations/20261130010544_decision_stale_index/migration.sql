-- CreateIndex
CREATE INDEX "decision_stale_created_at_idx" ON "decision"("stale", "created_at");
