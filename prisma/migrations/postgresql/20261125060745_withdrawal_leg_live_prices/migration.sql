-- AlterTable
ALTER TABLE "WithdrawalLeg" ADD COLUMN     "assetPriceSource" TEXT,
ADD COLUMN     "assetPricedAt" TIMESTAMP(3),
ADD COLUMN     "priceSource" TEXT,
ADD COLUMN     "pricedAt" TIMESTAMP(3);
