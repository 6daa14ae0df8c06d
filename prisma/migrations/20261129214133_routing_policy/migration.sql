-- CreateEnum
CREATE TYPE "FactorListStatus" AS ENUM ('draft', 'in_review', 'approved', 'rejected', 'active', 'shadow', 'superseded');

-- CreateEnum
CREATE TYPE "OverrideKind" AS ENUM ('routing_kill_switch', 'provider_kill', 'provider_pin');

-- CreateTable
CREATE TABLE "factor_list_version" (
    "id" UUID NOT NULL,
    "operation_key" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "status" "FactorListStatus" NOT NULL DEFAULT 'draft',
    "document" JSONB NOT NULL,
    "yaml" TEXT NOT NULL,
    "change_note" TEXT NOT NULL DEFAULT '',
    "gates_changed" BOOLEAN NOT NULL DEFAULT false,
    "author_id" UUID,
    "based_on_id" UUID,
    "rollback_of_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "submitted_at" TIMESTAMPTZ(3),
    "approved_at" TIMESTAMPTZ(3),
    "activated_at" TIMESTAMPTZ(3),
    "shadowed_at" TIMESTAMPTZ(3),
    "superseded_at" TIMESTAMPTZ(3),

    CONSTRAINT "factor_list_version_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "operation_policy" (
    "operation_key" TEXT NOT NULL,
    "active_version_id" UUID,
    "shadow_version_id" UUID,
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "operation_policy_pkey" PRIMARY KEY ("operation_key")
);

-- CreateTable
CREATE TABLE "override" (
    "id" UUID NOT NULL,
    "kind" "OverrideKind" NOT NULL,
    "operation_key" TEXT,
    "region" TEXT,
    "provider_key" TEXT,
    "reason" TEXT NOT NULL,
    "created_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),
    "ended_by_id" UUID,
    "end_reason" TEXT,

    CONSTRAINT "override_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "factor_list_version_operation_key_status_idx" ON "factor_list_version"("operation_key", "status");

-- CreateIndex
CREATE UNIQUE INDEX "factor_list_version_operation_key_version_key" ON "factor_list_version"("operation_key", "version");

-- CreateIndex
CREATE UNIQUE INDEX "operation_policy_active_version_id_key" ON "operation_policy"("active_version_id");

-- CreateIndex
CREATE UNIQUE INDEX "operation_policy_shadow_version_id_key" ON "operation_policy"("shadow_version_id");

-- CreateIndex
CREATE INDEX "override_ended_at_expires_at_idx" ON "override"("ended_at", "expires_at");

-- AddForeignKey
ALTER TABLE "factor_list_version" ADD CONSTRAINT "factor_list_version_operation_key_fkey" FOREIGN KEY ("operation_key") REFERENCES "operation"("key") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "operation_policy" ADD CONSTRAINT "operation_policy_operation_key_fkey" FOREIGN KEY ("operation_key") REFERENCES "operation"("key") ON DELETE RESTRICT ON UPDATE CASCADE;
