-- CreateTable
CREATE TABLE "PayoutInstruction" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "resellerId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "activeFor" TEXT,
    "pendingFor" TEXT,
    "trigger" TEXT NOT NULL,
    "thresholdUsd" TEXT,
    "asset" TEXT NOT NULL,
    "chainId" INTEGER NOT NULL,
    "destination" TEXT NOT NULL,
    "maxPerPayoutUsd" TEXT NOT NULL,
    "maxPerMonthUsd" TEXT NOT NULL,
    "signer" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "armed" BOOLEAN NOT NULL DEFAULT true,
    "crossings" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL,
    "effectiveAt" DATETIME NOT NULL,
    "endedAt" DATETIME,
    "revokedAt" DATETIME
);

-- CreateTable
CREATE TABLE "PayoutRun" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "instructionId" TEXT NOT NULL,
    "resellerId" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "usdValue" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    CONSTRAINT "PayoutRun_instructionId_fkey" FOREIGN KEY ("instructionId") REFERENCES "PayoutInstruction" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT
);

-- AlterTable (a column added in place: no rebuild of the withdrawals table)
ALTER TABLE "Withdrawal" ADD COLUMN "payoutRunId" TEXT REFERENCES "PayoutRun" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT;
CREATE UNIQUE INDEX "Withdrawal_payoutRunId_key" ON "Withdrawal"("payoutRunId");

-- CreateIndex
CREATE UNIQUE INDEX "PayoutInstruction_activeFor_key" ON "PayoutInstruction"("activeFor");

-- CreateIndex
CREATE UNIQUE INDEX "PayoutInstruction_pendingFor_key" ON "PayoutInstruction"("pendingFor");

-- CreateIndex
CREATE UNIQUE INDEX "PayoutInstruction_nonce_key" ON "PayoutInstruction"("nonce");

-- CreateIndex
CREATE INDEX "PayoutInstruction_resellerId_createdAt_idx" ON "PayoutInstruction"("resellerId", "createdAt");

-- CreateIndex
CREATE INDEX "PayoutInstruction_status_effectiveAt_idx" ON "PayoutInstruction"("status", "effectiveAt");

-- CreateIndex
CREATE INDEX "PayoutRun_resellerId_createdAt_idx" ON "PayoutRun"("resellerId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "PayoutRun_instructionId_period_key" ON "PayoutRun"("instructionId", "period");
