-- AlterTable
ALTER TABLE "Reseller" ADD COLUMN     "revokedAt" TIMESTAMP(3),
ADD COLUMN     "sessionVersion" INTEGER NOT NULL DEFAULT 0;
