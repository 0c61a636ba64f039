-- CreateTable
CREATE TABLE "RateQuote" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "resellerId" TEXT,
    "fromCurrency" TEXT NOT NULL,
    "toCurrency" TEXT NOT NULL,
    "fromAmount" TEXT NOT NULL,
    "rate" TEXT NOT NULL,
    "rawToAmount" TEXT NOT NULL,
    "toAmount" TEXT NOT NULL,
    "profit" TEXT NOT NULL,
    "platformFeeBps" INTEGER NOT NULL,
    "markupBps" INTEGER NOT NULL,
    "validUntil" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "WebhookEndpoint" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "resellerId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "previousSecret" TEXT,
    "previousSecretUntil" DATETIME,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabledReason" TEXT,
    "disabledAt" DATETIME,
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "WebhookEndpoint_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "WebhookMessage" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "resellerId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "subject" TEXT,
    "payload" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "endpointId" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "orderingKey" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME,
    "lastAttemptAt" DATETIME,
    "lastStatusCode" INTEGER,
    "lastError" TEXT,
    "lastLatencyMs" INTEGER,
    "leaseToken" TEXT,
    "leaseUntil" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "WebhookDelivery_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "WebhookEndpoint" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "WebhookDelivery_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "WebhookMessage" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "WebhookAttempt" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "deliveryId" INTEGER NOT NULL,
    "at" DATETIME NOT NULL,
    "statusCode" INTEGER,
    "latencyMs" INTEGER NOT NULL,
    "error" TEXT,
    CONSTRAINT "WebhookAttempt_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "WebhookDelivery" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Order" (
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
    "payinAddress" TEXT,
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
    "leaseToken" TEXT,
    "leaseUntil" DATETIME,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "provider" TEXT,
    "upstreamId" TEXT,
    "upstreamData" TEXT,
    "upstreamStatus" TEXT,
    "stateReason" TEXT,
    "stuckAt" DATETIME,
    "rateType" TEXT NOT NULL DEFAULT 'floating',
    "rateId" TEXT,
    "fixedUntil" DATETIME,
    "depositedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "idempotencyScope" TEXT,
    "idempotencyKey" TEXT,
    "requestHash" TEXT,
    CONSTRAINT "Order_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT,
    CONSTRAINT "Order_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Order" ("amountReceived", "apiKeyId", "attempts", "createdAt", "expiresAt", "failureReason", "fromAmount", "fromCurrency", "id", "idempotencyKey", "idempotencyScope", "lastError", "leaseToken", "leaseUntil", "markupBps", "nextActionAt", "payinAddress", "payinExtraId", "payinHash", "payoutAddress", "payoutExtraId", "payoutHash", "platformFeeBps", "profit", "provider", "rate", "rawToAmount", "refundAddress", "refundAmount", "refundExtraId", "refundHash", "refundState", "requestHash", "resellerId", "stateReason", "status", "stuckAt", "toAmount", "toCurrency", "updatedAt", "upstreamData", "upstreamId", "upstreamStatus") SELECT "amountReceived", "apiKeyId", "attempts", "createdAt", "expiresAt", "failureReason", "fromAmount", "fromCurrency", "id", "idempotencyKey", "idempotencyScope", "lastError", "leaseToken", "leaseUntil", "markupBps", "nextActionAt", "payinAddress", "payinExtraId", "payinHash", "payoutAddress", "payoutExtraId", "payoutHash", "platformFeeBps", "profit", "provider", "rate", "rawToAmount", "refundAddress", "refundAmount", "refundExtraId", "refundHash", "refundState", "requestHash", "resellerId", "stateReason", "status", "stuckAt", "toAmount", "toCurrency", "updatedAt", "upstreamData", "upstreamId", "upstreamStatus" FROM "Order";
DROP TABLE "Order";
ALTER TABLE "new_Order" RENAME TO "Order";
CREATE INDEX "Order_resellerId_createdAt_idx" ON "Order"("resellerId", "createdAt");
CREATE INDEX "Order_status_nextActionAt_idx" ON "Order"("status", "nextActionAt");
CREATE UNIQUE INDEX "Order_idempotencyScope_idempotencyKey_key" ON "Order"("idempotencyScope", "idempotencyKey");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "RateQuote_validUntil_idx" ON "RateQuote"("validUntil");

-- CreateIndex
CREATE INDEX "WebhookEndpoint_resellerId_idx" ON "WebhookEndpoint"("resellerId");

-- CreateIndex
CREATE INDEX "WebhookMessage_resellerId_createdAt_idx" ON "WebhookMessage"("resellerId", "createdAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_endpointId_orderingKey_id_idx" ON "WebhookDelivery"("endpointId", "orderingKey", "id");

-- CreateIndex
CREATE INDEX "WebhookDelivery_endpointId_createdAt_idx" ON "WebhookDelivery"("endpointId", "createdAt");

-- CreateIndex
CREATE INDEX "WebhookAttempt_deliveryId_idx" ON "WebhookAttempt"("deliveryId");
