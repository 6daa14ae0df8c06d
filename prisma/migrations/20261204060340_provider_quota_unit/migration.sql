-- AlterTable
ALTER TABLE "provider_quota_window" DROP CONSTRAINT "provider_quota_window_pkey",
ADD COLUMN     "unit" TEXT NOT NULL DEFAULT 'requests',
ALTER COLUMN "quota_limit" SET DATA TYPE BIGINT,
ALTER COLUMN "used" SET DATA TYPE BIGINT,
ADD CONSTRAINT "provider_quota_window_pkey" PRIMARY KEY ("provider_key", "unit", "window_seconds", "window_start");
