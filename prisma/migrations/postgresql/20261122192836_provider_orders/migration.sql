-- AlterTable
ALTER TABLE "Order" ADD COLUMN     "provider" TEXT,
ADD COLUMN     "stateReason" TEXT,
ADD COLUMN     "stuckAt" TIMESTAMP(3),
ADD COLUMN     "upstreamData" TEXT,
ADD COLUMN     "upstreamId" TEXT,
ADD COLUMN     "upstreamStatus" TEXT;
