-- CreateTable
CREATE TABLE "provider_throttle" (
    "provider_key" TEXT NOT NULL,
    "throttled_until_ms" DOUBLE PRECISION NOT NULL,
    "instance_id" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_throttle_pkey" PRIMARY KEY ("provider_key")
);
