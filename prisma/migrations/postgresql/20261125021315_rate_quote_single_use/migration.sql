-- AlterTable
ALTER TABLE "RateQuote" ADD COLUMN     "orderId" TEXT;
