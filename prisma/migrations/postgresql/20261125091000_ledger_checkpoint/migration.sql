-- CreateTable
CREATE TABLE "LedgerCheckpoint" (
    "id" SERIAL NOT NULL,
    "takenAt" TIMESTAMP(3) NOT NULL,
    "lastEntryId" INTEGER NOT NULL,
    "lastLineId" INTEGER NOT NULL,
    "balances" TEXT NOT NULL,
    "accounts" TEXT NOT NULL,
    "full" BOOLEAN NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LedgerCheckpoint_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Order_updatedAt_idx" ON "Order"("updatedAt");

-- CreateIndex
CREATE INDEX "PayoutTx_updatedAt_idx" ON "PayoutTx"("updatedAt");

-- CreateIndex
CREATE INDEX "Withdrawal_updatedAt_idx" ON "Withdrawal"("updatedAt");
