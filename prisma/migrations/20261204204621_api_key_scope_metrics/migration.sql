-- AlterEnum
ALTER TYPE "ApiKeyScope" ADD VALUE 'metrics';
