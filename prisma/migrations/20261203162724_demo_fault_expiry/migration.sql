-- AlterTable
ALTER TABLE "demo_fault" ADD COLUMN     "expiry_audited_at" TIMESTAMPTZ(3);
