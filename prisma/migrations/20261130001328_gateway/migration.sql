-- CreateTable
CREATE TABLE "provider_adapter" (
    "provider_key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "base_url" TEXT NOT NULL,
    "model" TEXT,
    "context_window" INTEGER,
    "input_price_per_1k" DOUBLE PRECISION,
    "output_price_per_1k" DOUBLE PRECISION,
    "credential_ref" TEXT,
    "timeout_ms" INTEGER NOT NULL DEFAULT 30000,
    "options" JSONB NOT NULL DEFAULT '{}',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_adapter_pkey" PRIMARY KEY ("provider_key")
);

-- CreateTable
CREATE TABLE "gateway_operation" (
    "operation_key" TEXT NOT NULL,
    "deadline_ms" INTEGER NOT NULL DEFAULT 30000,
    "max_attempts" INTEGER NOT NULL DEFAULT 3,
    "retry_budget_ratio" DOUBLE PRECISION NOT NULL DEFAULT 0.2,
    "retry_budget_min_per_second" DOUBLE PRECISION NOT NULL DEFAULT 3,
    "cost_cap_per_minute" DOUBLE PRECISION,
    "cost_cap_per_day" DOUBLE PRECISION,
    "max_fallback_seconds" INTEGER,
    "cache_ttl_seconds" INTEGER,
    "idempotency_window_seconds" INTEGER NOT NULL DEFAULT 300,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "gateway_operation_pkey" PRIMARY KEY ("operation_key")
);

-- CreateTable
CREATE TABLE "gateway_idempotency" (
    "operation_key" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "attempted" TEXT[],
    "http_status" INTEGER,
    "response" TEXT,
    "owner_id" TEXT NOT NULL,
    "lease_until" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "gateway_idempotency_pkey" PRIMARY KEY ("operation_key","key")
);

-- CreateIndex
CREATE INDEX "gateway_idempotency_expires_at_idx" ON "gateway_idempotency"("expires_at");
