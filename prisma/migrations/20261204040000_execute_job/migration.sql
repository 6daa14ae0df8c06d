-- CreateTable
CREATE TABLE "execute_job" (
    "id" UUID NOT NULL,
    "operation" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "not_before" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lease_owner" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "answer" JSONB,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "execute_job_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "execute_job_status_not_before_created_at_idx" ON "execute_job"("status", "not_before", "created_at");

-- CreateIndex
CREATE INDEX "execute_job_status_finished_at_idx" ON "execute_job"("status", "finished_at");
