-- AlterTable
ALTER TABLE "Withdrawal" ADD COLUMN     "payoutRunId" TEXT;

-- CreateTable
CREATE TABLE "PayoutInstruction" (
    "id" TEXT NOT NULL,
    "resellerId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "activeFor" TEXT,
    "pendingFor" TEXT,
    "trigger" TEXT NOT NULL,
    "thresholdUsd" DECIMAL,
    "asset" TEXT NOT NULL,
    "chainId" INTEGER NOT NULL,
    "destination" TEXT NOT NULL,
    "maxPerPayoutUsd" DECIMAL NOT NULL,
    "maxPerMonthUsd" DECIMAL NOT NULL,
    "signer" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "armed" BOOLEAN NOT NULL DEFAULT true,
    "crossings" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "effectiveAt" TIMESTAMP(3) NOT NULL,
    "endedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "PayoutInstruction_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PayoutRun" (
    "id" TEXT NOT NULL,
    "instructionId" TEXT NOT NULL,
    "resellerId" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "usdValue" DECIMAL NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PayoutRun_pkey" PRIMARY KEY ("id")
);

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

-- CreateIndex
CREATE UNIQUE INDEX "Withdrawal_payoutRunId_key" ON "Withdrawal"("payoutRunId");

-- AddForeignKey
ALTER TABLE "Withdrawal" ADD CONSTRAINT "Withdrawal_payoutRunId_fkey" FOREIGN KEY ("payoutRunId") REFERENCES "PayoutRun"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "PayoutRun" ADD CONSTRAINT "PayoutRun_instructionId_fkey" FOREIGN KEY ("instructionId") REFERENCES "PayoutInstruction"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;
