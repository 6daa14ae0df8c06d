-- CreateTable
CREATE TABLE "demo_fault" (
    "id" UUID NOT NULL,
    "provider_key" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "magnitude" DOUBLE PRECISION NOT NULL,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "demo_fault_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "demo_fault_region_starts_at_idx" ON "demo_fault"("region", "starts_at");

-- CreateIndex
CREATE INDEX "demo_fault_ends_at_idx" ON "demo_fault"("ends_at");
