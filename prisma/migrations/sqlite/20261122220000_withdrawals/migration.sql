-- CreateTable
CREATE TABLE "WithdrawalConfirmation" (
    "nonce" TEXT NOT NULL PRIMARY KEY,
    "resellerId" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "usedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "WithdrawalConfirmation_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT
);

-- CreateTable
CREATE TABLE "Withdrawal" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "resellerId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "asset" TEXT NOT NULL,
    "tokenAddress" TEXT,
    "decimals" INTEGER NOT NULL,
    "chainId" INTEGER NOT NULL,
    "destination" TEXT NOT NULL,
    "amount" TEXT NOT NULL,
    "usdValue" TEXT NOT NULL,
    "feePolicy" TEXT NOT NULL,
    "fee" TEXT NOT NULL,
    "confirmationNonce" TEXT NOT NULL,
    "stateReason" TEXT,
    "txHash" TEXT,
    "blockNumber" INTEGER,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "nextActionAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseToken" TEXT,
    "leaseUntil" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "sentAt" DATETIME,
    "finishedAt" DATETIME,
    CONSTRAINT "Withdrawal_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT
);

-- CreateTable
CREATE TABLE "WithdrawalLeg" (
    "withdrawalId" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount" TEXT NOT NULL,
    "rate" TEXT NOT NULL,
    "priceUsd" TEXT NOT NULL,
    "assetPriceUsd" TEXT NOT NULL,

    PRIMARY KEY ("withdrawalId", "currency"),
    CONSTRAINT "WithdrawalLeg_withdrawalId_fkey" FOREIGN KEY ("withdrawalId") REFERENCES "Withdrawal" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT
);

-- CreateTable
CREATE TABLE "PayoutTx" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "withdrawalId" TEXT NOT NULL,
    "chainId" INTEGER NOT NULL,
    "fromAddress" TEXT NOT NULL,
    "accountNonce" INTEGER NOT NULL,
    "rawTx" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "blockNumber" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "PayoutTx_withdrawalId_fkey" FOREIGN KEY ("withdrawalId") REFERENCES "Withdrawal" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT
);

-- AlterTable
-- Written as ADD COLUMN instead of Prisma's generated table rebuild: the rebuild would drop
-- LedgerEntry's append-only triggers, and inside the runner's transaction a DROP TABLE of a
-- referenced table cannot switch foreign keys off.
ALTER TABLE "LedgerEntry" ADD COLUMN "withdrawalId" TEXT REFERENCES "Withdrawal" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT;
CREATE UNIQUE INDEX "LedgerEntry_withdrawalId_currency_bucket_kind_key" ON "LedgerEntry"("withdrawalId", "currency", "bucket", "kind");

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
