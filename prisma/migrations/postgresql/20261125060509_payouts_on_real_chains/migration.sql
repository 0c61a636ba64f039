-- DropIndex
DROP INDEX "PayoutTx_chainId_fromAddress_accountNonce_key";

-- AlterTable
ALTER TABLE "PayoutTx" ADD COLUMN     "blockHash" TEXT,
ADD COLUMN     "broadcastAt" TIMESTAMP(3),
ADD COLUMN     "fee" TEXT,
ADD COLUMN     "gasLimit" TEXT,
ADD COLUMN     "maxFeePerGas" TEXT,
ADD COLUMN     "maxPriorityFeePerGas" TEXT,
ADD COLUMN     "paidNonce" INTEGER,
ADD COLUMN     "replacement" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "Withdrawal" ADD COLUMN     "networkFee" TEXT,
ADD COLUMN     "reorgs" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "PayoutTx_chainId_status_blockNumber_idx" ON "PayoutTx"("chainId", "status", "blockNumber");

-- CreateIndex
CREATE UNIQUE INDEX "PayoutTx_chainId_fromAddress_accountNonce_replacement_key" ON "PayoutTx"("chainId", "fromAddress", "accountNonce", "replacement");

-- CreateIndex
CREATE UNIQUE INDEX "PayoutTx_chainId_fromAddress_paidNonce_key" ON "PayoutTx"("chainId", "fromAddress", "paidNonce");

-- A payout already recorded as mined is the one paying its nonce.
UPDATE "PayoutTx" SET "paidNonce" = "accountNonce" WHERE "status" = 'mined';
