-- CreateTable
CREATE TABLE "provider_quota_window" (
    "provider_key" TEXT NOT NULL,
    "window_seconds" INTEGER NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "quota_limit" INTEGER NOT NULL,
    "used" INTEGER NOT NULL DEFAULT 0,
    "holders" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_quota_window_pkey" PRIMARY KEY ("provider_key","window_seconds","window_start")
);

-- CreateIndex
CREATE INDEX "provider_quota_window_window_start_idx" ON "provider_quota_window"("window_start");
