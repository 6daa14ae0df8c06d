-- AlterEnum
ALTER TYPE "OutcomeErrorClass" ADD VALUE 'protocol';
