-- CreateIndex
CREATE INDEX "decision_operation_created_at_shadow_agrees_idx" ON "decision"("operation", "created_at", "shadow_agrees");
