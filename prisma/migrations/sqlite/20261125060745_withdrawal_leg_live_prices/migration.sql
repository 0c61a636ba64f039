-- AlterTable
ALTER TABLE "WithdrawalLeg" ADD COLUMN "assetPriceSource" TEXT;
ALTER TABLE "WithdrawalLeg" ADD COLUMN "assetPricedAt" DATETIME;
ALTER TABLE "WithdrawalLeg" ADD COLUMN "priceSource" TEXT;
ALTER TABLE "WithdrawalLeg" ADD COLUMN "pricedAt" DATETIME;
