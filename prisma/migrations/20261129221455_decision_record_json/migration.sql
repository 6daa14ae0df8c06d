-- AlterTable
ALTER TABLE "decision" ALTER COLUMN "record" SET DATA TYPE JSON;
