-- CreateEnum
CREATE TYPE "OutcomeErrorClass" AS ENUM ('timeout', 'http_5xx', 'http_4xx', 'throttled', 'quota', 'regional', 'network', 'other');

-- CreateEnum
CREATE TYPE "OutcomeFailureStage" AS ENUM ('before_provider', 'provider_call', 'user_action', 'downstream_app', 'unknown');

-- CreateTable
CREATE TABLE "provider_call_outcome" (
    "id" BIGSERIAL NOT NULL,
    "decision_id" TEXT NOT NULL,
    "operation_key" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "provider_key" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "error_class" "OutcomeErrorClass",
    "http_status" INTEGER,
    "latency_ms" DOUBLE PRECISION NOT NULL,
    "retry_count" INTEGER NOT NULL,
    "reported_at" TIMESTAMPTZ(3) NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_call_outcome_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "business_outcome" (
    "id" BIGSERIAL NOT NULL,
    "decision_id" TEXT NOT NULL,
    "operation_key" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "provider_key" TEXT,
    "completed" BOOLEAN NOT NULL,
    "failure_stage" "OutcomeFailureStage",
    "within_sla" BOOLEAN NOT NULL,
    "reported_at" TIMESTAMPTZ(3) NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "business_outcome_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "metric_bucket" (
    "provider_key" TEXT NOT NULL,
    "operation_key" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "bucket_start" TIMESTAMPTZ(3) NOT NULL,
    "width_ms" INTEGER NOT NULL,
    "calls" BIGINT NOT NULL DEFAULT 0,
    "call_failures" BIGINT NOT NULL DEFAULT 0,
    "latency_counts" BIGINT[],
    "completions" BIGINT NOT NULL DEFAULT 0,
    "failures_before_provider" BIGINT NOT NULL DEFAULT 0,
    "failures_provider_call" BIGINT NOT NULL DEFAULT 0,
    "failures_user_action" BIGINT NOT NULL DEFAULT 0,
    "failures_downstream_app" BIGINT NOT NULL DEFAULT 0,
    "failures_unknown" BIGINT NOT NULL DEFAULT 0,
    "incidents" BIGINT NOT NULL DEFAULT 0,
    "last_event_at" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "metric_bucket_pkey" PRIMARY KEY ("provider_key","operation_key","region","bucket_start")
);

-- CreateTable
CREATE TABLE "breaker_event" (
    "id" BIGSERIAL NOT NULL,
    "provider_key" TEXT NOT NULL,
    "region" TEXT,
    "from_state" TEXT NOT NULL,
    "to_state" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "detail" TEXT NOT NULL DEFAULT '',
    "instance_id" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "breaker_event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "traffic_share" (
    "operation_key" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "provider_key" TEXT NOT NULL,
    "share" DOUBLE PRECISION NOT NULL,
    "policy_version" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "traffic_share_pkey" PRIMARY KEY ("operation_key","region","provider_key")
);

-- CreateTable
CREATE TABLE "traffic_share_sample" (
    "id" BIGSERIAL NOT NULL,
    "operation_key" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "shares" JSONB NOT NULL,

    CONSTRAINT "traffic_share_sample_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "shift_event" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "operation_key" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "provider_key" TEXT,
    "leader_from" TEXT,
    "leader_to" TEXT,
    "shares_from" JSONB NOT NULL,
    "shares_to" JSONB NOT NULL,
    "capped" BOOLEAN NOT NULL DEFAULT false,
    "detail" TEXT NOT NULL,
    "evidence" JSONB NOT NULL,
    "policy_version" TEXT,

    CONSTRAINT "shift_event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "controller_state" (
    "operation_key" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "state" JSONB NOT NULL,
    "instance_id" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "controller_state_pkey" PRIMARY KEY ("operation_key","region")
);

-- CreateIndex
CREATE INDEX "provider_call_outcome_decision_id_idx" ON "provider_call_outcome"("decision_id");

-- CreateIndex
CREATE INDEX "provider_call_outcome_reported_at_idx" ON "provider_call_outcome"("reported_at");

-- CreateIndex
CREATE INDEX "business_outcome_decision_id_idx" ON "business_outcome"("decision_id");

-- CreateIndex
CREATE INDEX "business_outcome_reported_at_idx" ON "business_outcome"("reported_at");

-- CreateIndex
CREATE INDEX "metric_bucket_bucket_start_idx" ON "metric_bucket"("bucket_start");

-- CreateIndex
CREATE INDEX "breaker_event_provider_key_at_idx" ON "breaker_event"("provider_key", "at");

-- CreateIndex
CREATE INDEX "breaker_event_at_idx" ON "breaker_event"("at");

-- CreateIndex
CREATE INDEX "traffic_share_sample_operation_key_region_at_idx" ON "traffic_share_sample"("operation_key", "region", "at");

-- CreateIndex
CREATE INDEX "traffic_share_sample_at_idx" ON "traffic_share_sample"("at");

-- CreateIndex
CREATE INDEX "shift_event_operation_key_region_at_idx" ON "shift_event"("operation_key", "region", "at");

-- CreateIndex
CREATE INDEX "shift_event_at_idx" ON "shift_event"("at");
