-- AlterTable
ALTER TABLE "Order" ADD COLUMN "provider" TEXT;
ALTER TABLE "Order" ADD COLUMN "stateReason" TEXT;
ALTER TABLE "Order" ADD COLUMN "stuckAt" DATETIME;
ALTER TABLE "Order" ADD COLUMN "upstreamData" TEXT;
ALTER TABLE "Order" ADD COLUMN "upstreamId" TEXT;
ALTER TABLE "Order" ADD COLUMN "upstreamStatus" TEXT;
