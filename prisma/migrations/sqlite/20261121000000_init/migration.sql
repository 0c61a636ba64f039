-- CreateTable
CREATE TABLE "Reseller" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "walletAddress" TEXT NOT NULL,
    "markupBps" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "resellerId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME,
    "replacedById" TEXT,
    CONSTRAINT "ApiKey_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Order" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "resellerId" TEXT,
    "apiKeyId" TEXT,
    "fromCurrency" TEXT NOT NULL,
    "toCurrency" TEXT NOT NULL,
    "fromAmount" TEXT NOT NULL,
    "rate" TEXT NOT NULL,
    "rawToAmount" TEXT NOT NULL,
    "toAmount" TEXT NOT NULL,
    "platformFeeBps" INTEGER NOT NULL,
    "markupBps" INTEGER NOT NULL,
    "profit" TEXT NOT NULL,
    "payinAddress" TEXT NOT NULL,
    "payinExtraId" TEXT,
    "payoutAddress" TEXT NOT NULL,
    "payoutExtraId" TEXT,
    "refundAddress" TEXT,
    "refundExtraId" TEXT,
    "status" TEXT NOT NULL,
    "amountReceived" TEXT,
    "payinHash" TEXT,
    "payoutHash" TEXT,
    "refundState" TEXT,
    "refundHash" TEXT,
    "refundAmount" TEXT,
    "failureReason" TEXT,
    "expiresAt" DATETIME NOT NULL,
    "nextActionAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "idempotencyScope" TEXT,
    "idempotencyKey" TEXT,
    "requestHash" TEXT,
    CONSTRAINT "Order_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Order_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "OrderEvent" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "orderId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "note" TEXT,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "OrderEvent_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "LedgerEntry" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "resellerId" TEXT NOT NULL,
    "orderId" TEXT,
    "currency" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "amount" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "LedgerEntry_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "LedgerEntry_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AuthNonce" (
    "nonce" TEXT NOT NULL PRIMARY KEY,
    "expiresAt" DATETIME NOT NULL,
    "usedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "Reseller_walletAddress_key" ON "Reseller"("walletAddress");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_prefix_key" ON "ApiKey"("prefix");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_hash_key" ON "ApiKey"("hash");

-- CreateIndex
CREATE INDEX "ApiKey_resellerId_idx" ON "ApiKey"("resellerId");

-- CreateIndex
CREATE INDEX "Order_resellerId_createdAt_idx" ON "Order"("resellerId", "createdAt");

-- CreateIndex
CREATE INDEX "Order_status_nextActionAt_idx" ON "Order"("status", "nextActionAt");

-- CreateIndex
CREATE UNIQUE INDEX "Order_idempotencyScope_idempotencyKey_key" ON "Order"("idempotencyScope", "idempotencyKey");

-- CreateIndex
CREATE INDEX "OrderEvent_orderId_id_idx" ON "OrderEvent"("orderId", "id");

-- CreateIndex
CREATE INDEX "LedgerEntry_resellerId_currency_idx" ON "LedgerEntry"("resellerId", "currency");

-- CreateIndex
CREATE UNIQUE INDEX "LedgerEntry_orderId_kind_key" ON "LedgerEntry"("orderId", "kind");
