-- CreateTable
-- Edited by hand: partitioned by day (Prisma cannot declare partitioning). The daily partitions
-- are created ahead of time by lib/dataplane/decision-log/partitions.ts, not here.
CREATE TABLE "decision" (
    "id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "operation" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "policy_version" TEXT,
    "shadow_version" TEXT,
    "selected_provider" TEXT,
    "reason_code" TEXT NOT NULL,
    "shadow_pick" TEXT,
    "shadow_agrees" BOOLEAN,
    "score_margin" DOUBLE PRECISION,
    "stale" BOOLEAN NOT NULL,
    "metric_age_ms" INTEGER,
    "fallback_action" TEXT,
    "degraded" BOOLEAN NOT NULL DEFAULT false,
    "record" JSONB NOT NULL,
    "durability" TEXT NOT NULL,
    "instance_id" TEXT NOT NULL,

    CONSTRAINT "decision_pkey" PRIMARY KEY ("id","created_at")
) PARTITION BY RANGE ("created_at");

-- CreateIndex
CREATE INDEX "decision_created_at_idx" ON "decision"("created_at" DESC);

-- CreateIndex
CREATE INDEX "decision_operation_region_created_at_idx" ON "decision"("operation", "region", "created_at");

-- CreateIndex
CREATE INDEX "decision_selected_provider_created_at_idx" ON "decision"("selected_provider", "created_at");

-- CreateIndex
CREATE INDEX "decision_reason_code_created_at_idx" ON "decision"("reason_code", "created_at");

-- CreateIndex
CREATE INDEX "decision_operation_request_id_created_at_idx" ON "decision"("operation", "request_id", "created_at");
