-- CreateTable
CREATE TABLE "Balance" (
    "resellerId" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "pending" TEXT NOT NULL DEFAULT '0',
    "available" TEXT NOT NULL DEFAULT '0',
    "reserved" TEXT NOT NULL DEFAULT '0',
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("resellerId", "currency"),
    CONSTRAINT "Balance_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_LedgerEntry" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "resellerId" TEXT NOT NULL,
    "orderId" TEXT,
    "currency" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "amount" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "LedgerEntry_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT,
    CONSTRAINT "LedgerEntry_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT
);
INSERT INTO "new_LedgerEntry" ("amount", "bucket", "createdAt", "currency", "id", "kind", "orderId", "resellerId") SELECT "amount", "bucket", "createdAt", "currency", "id", "kind", "orderId", "resellerId" FROM "LedgerEntry";
DROP TABLE "LedgerEntry";
ALTER TABLE "new_LedgerEntry" RENAME TO "LedgerEntry";
CREATE INDEX "LedgerEntry_resellerId_currency_idx" ON "LedgerEntry"("resellerId", "currency");
CREATE UNIQUE INDEX "LedgerEntry_orderId_kind_key" ON "LedgerEntry"("orderId", "kind");
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
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "idempotencyScope" TEXT,
    "idempotencyKey" TEXT,
    "requestHash" TEXT,
    CONSTRAINT "Order_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT,
    CONSTRAINT "Order_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Order" ("amountReceived", "apiKeyId", "createdAt", "expiresAt", "failureReason", "fromAmount", "fromCurrency", "id", "idempotencyKey", "idempotencyScope", "markupBps", "nextActionAt", "payinAddress", "payinExtraId", "payinHash", "payoutAddress", "payoutExtraId", "payoutHash", "platformFeeBps", "profit", "rate", "rawToAmount", "refundAddress", "refundAmount", "refundExtraId", "refundHash", "refundState", "requestHash", "resellerId", "status", "toAmount", "toCurrency", "updatedAt") SELECT "amountReceived", "apiKeyId", "createdAt", "expiresAt", "failureReason", "fromAmount", "fromCurrency", "id", "idempotencyKey", "idempotencyScope", "markupBps", "nextActionAt", "payinAddress", "payinExtraId", "payinHash", "payoutAddress", "payoutExtraId", "payoutHash", "platformFeeBps", "profit", "rate", "rawToAmount", "refundAddress", "refundAmount", "refundExtraId", "refundHash", "refundState", "requestHash", "resellerId", "status", "toAmount", "toCurrency", "updatedAt" FROM "Order";
DROP TABLE "Order";
ALTER TABLE "new_Order" RENAME TO "Order";
CREATE INDEX "Order_resellerId_createdAt_idx" ON "Order"("resellerId", "createdAt");
CREATE INDEX "Order_status_nextActionAt_idx" ON "Order"("status", "nextActionAt");
CREATE UNIQUE INDEX "Order_idempotencyScope_idempotencyKey_key" ON "Order"("idempotencyScope", "idempotencyKey");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- The ledger is append-only: the database refuses to change or remove an entry, whoever asks.
-- (Triggers go with their table: a later migration that rebuilds LedgerEntry or Balance must
-- create these again; tests/ledger runs UPDATE and DELETE against a fully migrated file.)
CREATE TRIGGER "LedgerEntry_no_update" BEFORE UPDATE ON "LedgerEntry"
BEGIN
  SELECT RAISE(ABORT, 'LedgerEntry is append-only: UPDATE refused');
END;

CREATE TRIGGER "LedgerEntry_no_delete" BEFORE DELETE ON "LedgerEntry"
BEGIN
  SELECT RAISE(ABORT, 'LedgerEntry is append-only: DELETE refused');
END;

-- Amounts are exact decimal strings (-?digits[.digits]); SQLite has no decimal type to say so.
CREATE TRIGGER "LedgerEntry_amount_is_decimal" BEFORE INSERT ON "LedgerEntry"
WHEN typeof(NEW."amount") <> 'text'
  OR NOT (NEW."amount" GLOB '[0-9]*' OR NEW."amount" GLOB '-[0-9]*')
  OR NEW."amount" GLOB '*[^0-9.-]*'
  OR NEW."amount" GLOB '?*-*'
  OR NEW."amount" GLOB '*.*.*'
  OR NEW."amount" GLOB '*.'
BEGIN
  SELECT RAISE(ABORT, 'LedgerEntry.amount must be a decimal string');
END;

-- Balances never go negative (lib/ledger refuses such a change first, this is the backstop).
-- The sign of a decimal string is its first character: exact, no float conversion.
CREATE TRIGGER "Balance_non_negative_insert" BEFORE INSERT ON "Balance"
WHEN NEW."pending" GLOB '-*' OR NEW."available" GLOB '-*' OR NEW."reserved" GLOB '-*'
BEGIN
  SELECT RAISE(ABORT, 'Balance would go negative');
END;

CREATE TRIGGER "Balance_non_negative_update" BEFORE UPDATE ON "Balance"
WHEN NEW."pending" GLOB '-*' OR NEW."available" GLOB '-*' OR NEW."reserved" GLOB '-*'
BEGIN
  SELECT RAISE(ABORT, 'Balance would go negative');
END;
