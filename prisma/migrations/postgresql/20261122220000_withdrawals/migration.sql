-- AlterTable
ALTER TABLE "LedgerEntry" ADD COLUMN     "withdrawalId" TEXT;

-- CreateTable
CREATE TABLE "WithdrawalConfirmation" (
    "nonce" TEXT NOT NULL,
    "resellerId" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WithdrawalConfirmation_pkey" PRIMARY KEY ("nonce")
);

-- CreateTable
CREATE TABLE "Withdrawal" (
    "id" TEXT NOT NULL,
    "resellerId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "asset" TEXT NOT NULL,
    "tokenAddress" TEXT,
    "decimals" INTEGER NOT NULL,
    "chainId" INTEGER NOT NULL,
    "destination" TEXT NOT NULL,
    "amount" DECIMAL NOT NULL,
    "usdValue" DECIMAL NOT NULL,
    "feePolicy" TEXT NOT NULL,
    "fee" DECIMAL NOT NULL,
    "confirmationNonce" TEXT NOT NULL,
    "stateReason" TEXT,
    "txHash" TEXT,
    "blockNumber" INTEGER,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "nextActionAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseToken" TEXT,
    "leaseUntil" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "sentAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Withdrawal_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WithdrawalLeg" (
    "withdrawalId" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount" DECIMAL NOT NULL,
    "rate" DECIMAL NOT NULL,
    "priceUsd" DECIMAL NOT NULL,
    "assetPriceUsd" DECIMAL NOT NULL,

    CONSTRAINT "WithdrawalLeg_pkey" PRIMARY KEY ("withdrawalId","currency")
);

-- CreateTable
CREATE TABLE "PayoutTx" (
    "id" SERIAL NOT NULL,
    "withdrawalId" TEXT NOT NULL,
    "chainId" INTEGER NOT NULL,
    "fromAddress" TEXT NOT NULL,
    "accountNonce" INTEGER NOT NULL,
    "rawTx" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "blockNumber" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PayoutTx_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WithdrawalConfirmation_resellerId_createdAt_idx" ON "WithdrawalConfirmation"("resellerId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Withdrawal_confirmationNonce_key" ON "Withdrawal"("confirmationNonce");

-- CreateIndex
CREATE INDEX "Withdrawal_resellerId_createdAt_idx" ON "Withdrawal"("resellerId", "createdAt");

-- CreateIndex
CREATE INDEX "Withdrawal_status_nextActionAt_idx" ON "Withdrawal"("status", "nextActionAt");

-- CreateIndex
CREATE UNIQUE INDEX "PayoutTx_hash_key" ON "PayoutTx"("hash");

-- CreateIndex
CREATE INDEX "PayoutTx_withdrawalId_idx" ON "PayoutTx"("withdrawalId");

-- CreateIndex
CREATE UNIQUE INDEX "PayoutTx_chainId_fromAddress_accountNonce_key" ON "PayoutTx"("chainId", "fromAddress", "accountNonce");

-- CreateIndex
CREATE UNIQUE INDEX "LedgerEntry_withdrawalId_currency_bucket_kind_key" ON "LedgerEntry"("withdrawalId", "currency", "bucket", "kind");

-- AddForeignKey
ALTER TABLE "LedgerEntry" ADD CONSTRAINT "LedgerEntry_withdrawalId_fkey" FOREIGN KEY ("withdrawalId") REFERENCES "Withdrawal"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "WithdrawalConfirmation" ADD CONSTRAINT "WithdrawalConfirmation_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "Withdrawal" ADD CONSTRAINT "Withdrawal_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "WithdrawalLeg" ADD CONSTRAINT "WithdrawalLeg_withdrawalId_fkey" FOREIGN KEY ("withdrawalId") REFERENCES "Withdrawal"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "PayoutTx" ADD CONSTRAINT "PayoutTx_withdrawalId_fkey" FOREIGN KEY ("withdrawalId") REFERENCES "Withdrawal"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;
