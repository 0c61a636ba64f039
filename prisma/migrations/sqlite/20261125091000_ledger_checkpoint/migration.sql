-- CreateTable
CREATE TABLE "LedgerCheckpoint" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "takenAt" DATETIME NOT NULL,
    "lastEntryId" INTEGER NOT NULL,
    "lastLineId" INTEGER NOT NULL,
    "balances" TEXT NOT NULL,
    "accounts" TEXT NOT NULL,
    "full" BOOLEAN NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "Order_updatedAt_idx" ON "Order"("updatedAt");

-- CreateIndex
CREATE INDEX "PayoutTx_updatedAt_idx" ON "PayoutTx"("updatedAt");

-- CreateIndex
CREATE INDEX "Withdrawal_updatedAt_idx" ON "Withdrawal"("updatedAt");
