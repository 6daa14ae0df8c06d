-- AlterTable
ALTER TABLE "provider_call_outcome" ADD COLUMN     "detail" VARCHAR(500);
