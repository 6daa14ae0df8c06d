-- AlterTable
ALTER TABLE "provider_call_outcome" ADD COLUMN     "ttfb_ms" DOUBLE PRECISION;
