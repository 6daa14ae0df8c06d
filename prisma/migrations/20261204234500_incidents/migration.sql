-- CreateTable
CREATE TABLE "incident" (
    "id" UUID NOT NULL,
    "operation_key" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "provider_key" TEXT,
    "state" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "cause_kind" TEXT NOT NULL,
    "cause_detail" TEXT NOT NULL,
    "cause_source" TEXT NOT NULL,
    "cause_evidence" JSONB NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "recovered_at" TIMESTAMPTZ(3),
    "failback_done_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),
    "end_reason" TEXT,
    "ended_by_id" UUID,
    "last_fact_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "incident_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "incident_step" (
    "id" UUID NOT NULL,
    "incident_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "phase" TEXT NOT NULL,
    "provider_key" TEXT,
    "first_type" TEXT NOT NULL,
    "last_type" TEXT NOT NULL,
    "ticks" INTEGER NOT NULL,
    "capped" BOOLEAN NOT NULL,
    "shares_from" JSONB NOT NULL,
    "shares_to" JSONB NOT NULL,
    "detail" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3) NOT NULL,
    "first_event" BIGINT NOT NULL,
    "last_event" BIGINT NOT NULL,

    CONSTRAINT "incident_step_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "incident_fact" (
    "id" BIGSERIAL NOT NULL,
    "incident_id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "kind" TEXT NOT NULL,
    "provider_key" TEXT,
    "summary" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "source" TEXT NOT NULL,

    CONSTRAINT "incident_fact_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "incident_cursor" (
    "id" INTEGER NOT NULL,
    "shift_event_id" BIGINT NOT NULL DEFAULT 0,
    "breaker_event_id" BIGINT NOT NULL DEFAULT 0,
    "audit_seq" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "incident_cursor_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "incident_ended_at_started_at_idx" ON "incident"("ended_at", "started_at");

-- CreateIndex
CREATE INDEX "incident_operation_key_region_started_at_idx" ON "incident"("operation_key", "region", "started_at");

-- CreateIndex
CREATE UNIQUE INDEX "incident_cause_source_operation_key_region_key" ON "incident"("cause_source", "operation_key", "region");

-- CreateIndex
CREATE UNIQUE INDEX "incident_step_incident_id_seq_key" ON "incident_step"("incident_id", "seq");

-- CreateIndex
CREATE INDEX "incident_fact_incident_id_at_idx" ON "incident_fact"("incident_id", "at");

-- CreateIndex
CREATE UNIQUE INDEX "incident_fact_incident_id_source_key" ON "incident_fact"("incident_id", "source");
