-- CreateEnum
CREATE TYPE "CatalogChangeStatus" AS ENUM ('pending', 'applied', 'rejected', 'superseded');

-- AlterEnum
ALTER TYPE "ApiKeyScope" ADD VALUE 'control';

-- AlterTable
ALTER TABLE "operation" ADD COLUMN     "enabled" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "region_requirements" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "provider" ADD COLUMN     "cost_per_input_1k" DECIMAL(12,6),
ADD COLUMN     "cost_per_output_1k" DECIMAL(12,6),
ADD COLUMN     "credential_ref" TEXT,
ADD COLUMN     "quotas" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "catalog_change" (
    "id" UUID NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_key" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "reasons" TEXT[],
    "base_version" INTEGER,
    "status" "CatalogChangeStatus" NOT NULL DEFAULT 'pending',
    "requested_by_id" UUID,
    "requested_by" TEXT NOT NULL,
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decided_by_id" UUID,
    "decided_by" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "comment" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "catalog_change_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "catalog_change_status_requested_at_idx" ON "catalog_change"("status", "requested_at");

-- CreateIndex
CREATE INDEX "catalog_change_target_type_target_key_status_idx" ON "catalog_change"("target_type", "target_key", "status");
