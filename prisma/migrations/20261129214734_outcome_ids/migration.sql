-- AlterTable
ALTER TABLE "business_outcome" ADD COLUMN     "outcome_id" UUID NOT NULL;

-- AlterTable
ALTER TABLE "provider_call_outcome" ADD COLUMN     "outcome_id" UUID NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "business_outcome_outcome_id_key" ON "business_outcome"("outcome_id");

-- CreateIndex
CREATE UNIQUE INDEX "provider_call_outcome_outcome_id_key" ON "provider_call_outcome"("outcome_id");
