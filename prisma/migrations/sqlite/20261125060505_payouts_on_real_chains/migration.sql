-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_PayoutTx" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "withdrawalId" TEXT NOT NULL,
    "chainId" INTEGER NOT NULL,
    "fromAddress" TEXT NOT NULL,
    "accountNonce" INTEGER NOT NULL,
    "replacement" INTEGER NOT NULL DEFAULT 0,
    "rawTx" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "gasLimit" TEXT,
    "maxFeePerGas" TEXT,
    "maxPriorityFeePerGas" TEXT,
    "broadcastAt" DATETIME,
    "paidNonce" INTEGER,
    "blockNumber" INTEGER,
    "blockHash" TEXT,
    "fee" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "PayoutTx_withdrawalId_fkey" FOREIGN KEY ("withdrawalId") REFERENCES "Withdrawal" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT
);
INSERT INTO "new_PayoutTx" ("accountNonce", "blockNumber", "chainId", "createdAt", "fromAddress", "hash", "id", "rawTx", "status", "updatedAt", "withdrawalId") SELECT "accountNonce", "blockNumber", "chainId", "createdAt", "fromAddress", "hash", "id", "rawTx", "status", "updatedAt", "withdrawalId" FROM "PayoutTx";
DROP TABLE "PayoutTx";
ALTER TABLE "new_PayoutTx" RENAME TO "PayoutTx";
CREATE UNIQUE INDEX "PayoutTx_hash_key" ON "PayoutTx"("hash");
CREATE INDEX "PayoutTx_withdrawalId_idx" ON "PayoutTx"("withdrawalId");
CREATE INDEX "PayoutTx_chainId_status_blockNumber_idx" ON "PayoutTx"("chainId", "status", "blockNumber");
CREATE UNIQUE INDEX "PayoutTx_chainId_fromAddress_accountNonce_replacement_key" ON "PayoutTx"("chainId", "fromAddress", "accountNonce", "replacement");
CREATE UNIQUE INDEX "PayoutTx_chainId_fromAddress_paidNonce_key" ON "PayoutTx"("chainId", "fromAddress", "paidNonce");
CREATE TABLE "new_Withdrawal" (
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
    "reorgs" INTEGER NOT NULL DEFAULT 0,
    "networkFee" TEXT,
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
INSERT INTO "new_Withdrawal" ("amount", "asset", "attempts", "blockNumber", "chainId", "confirmationNonce", "createdAt", "decimals", "destination", "fee", "feePolicy", "finishedAt", "id", "lastError", "leaseToken", "leaseUntil", "nextActionAt", "resellerId", "sentAt", "stateReason", "status", "tokenAddress", "txHash", "updatedAt", "usdValue") SELECT "amount", "asset", "attempts", "blockNumber", "chainId", "confirmationNonce", "createdAt", "decimals", "destination", "fee", "feePolicy", "finishedAt", "id", "lastError", "leaseToken", "leaseUntil", "nextActionAt", "resellerId", "sentAt", "stateReason", "status", "tokenAddress", "txHash", "updatedAt", "usdValue" FROM "Withdrawal";
DROP TABLE "Withdrawal";
ALTER TABLE "new_Withdrawal" RENAME TO "Withdrawal";
CREATE UNIQUE INDEX "Withdrawal_confirmationNonce_key" ON "Withdrawal"("confirmationNonce");
CREATE INDEX "Withdrawal_resellerId_createdAt_idx" ON "Withdrawal"("resellerId", "createdAt");
CREATE INDEX "Withdrawal_status_nextActionAt_idx" ON "Withdrawal"("status", "nextActionAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- A payout already recorded as mined is the one paying its nonce.
UPDATE "PayoutTx" SET "paidNonce" = "accountNonce" WHERE "status" = 'mined';
