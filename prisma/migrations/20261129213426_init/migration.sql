-- CreateEnum
CREATE TYPE "Criticality" AS ENUM ('low', 'medium', 'high', 'critical');

-- CreateEnum
CREATE TYPE "CredentialStatus" AS ENUM ('valid', 'expiring', 'invalid', 'missing');

-- CreateTable
CREATE TABLE "provider" (
    "id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "supported_regions" TEXT[],
    "compliance_tags" TEXT[],
    "cost_per_request" DECIMAL(12,6) NOT NULL,
    "credential_status" "CredentialStatus" NOT NULL DEFAULT 'valid',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "provider_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "operation" (
    "id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "criticality" "Criticality" NOT NULL DEFAULT 'medium',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "operation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "provider_key_key" ON "provider"("key");

-- CreateIndex
CREATE UNIQUE INDEX "operation_key_key" ON "operation"("key");
