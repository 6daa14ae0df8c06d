-- CreateTable
CREATE TABLE "breaker_state" (
    "provider_key" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "state" JSONB NOT NULL,
    "since_ms" DOUBLE PRECISION NOT NULL,
    "opened_at_ms" DOUBLE PRECISION,
    "probe_claims" INTEGER NOT NULL DEFAULT 0,
    "probe_claimed_at" TIMESTAMPTZ(3),
    "probe_successes" INTEGER NOT NULL DEFAULT 0,
    "instance_id" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "breaker_state_pkey" PRIMARY KEY ("provider_key","region")
);

-- CreateIndex
CREATE INDEX "breaker_state_updated_at_idx" ON "breaker_state"("updated_at");
