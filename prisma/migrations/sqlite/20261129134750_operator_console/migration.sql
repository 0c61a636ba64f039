-- AlterTable
ALTER TABLE "Reseller" ADD COLUMN "markupCapBps" INTEGER;
ALTER TABLE "Reseller" ADD COLUMN "suspendedAt" DATETIME;

-- AlterTable
ALTER TABLE "Withdrawal" ADD COLUMN "approvalSignature" TEXT;
ALTER TABLE "Withdrawal" ADD COLUMN "approvedAt" DATETIME;
ALTER TABLE "Withdrawal" ADD COLUMN "approvedBy" TEXT;
ALTER TABLE "Withdrawal" ADD COLUMN "rejectedAt" DATETIME;
ALTER TABLE "Withdrawal" ADD COLUMN "rejectedBy" TEXT;
ALTER TABLE "Withdrawal" ADD COLUMN "rejectionReason" TEXT;

-- CreateTable
CREATE TABLE "Operator" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "walletAddress" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "addedBy" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "removedAt" DATETIME
);

-- CreateTable
CREATE TABLE "OperatorSession" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "operatorId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "endedAt" DATETIME,
    CONSTRAINT "OperatorSession_operatorId_fkey" FOREIGN KEY ("operatorId") REFERENCES "Operator" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "operatorId" TEXT,
    "actor" TEXT NOT NULL,
    "role" TEXT,
    "action" TEXT NOT NULL,
    "targetType" TEXT,
    "targetId" TEXT,
    "before" TEXT,
    "after" TEXT,
    "reason" TEXT
);

-- CreateTable
CREATE TABLE "UpstreamStatusEvent" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "orderId" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ProviderSwitch" (
    "provider" TEXT NOT NULL PRIMARY KEY,
    "enabled" BOOLEAN NOT NULL,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedBy" TEXT
);

-- CreateTable
CREATE TABLE "ProviderCallHour" (
    "provider" TEXT NOT NULL,
    "hour" DATETIME NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "buckets" TEXT NOT NULL DEFAULT '{}',

    PRIMARY KEY ("provider", "hour")
);

-- CreateTable
CREATE TABLE "ProviderCallError" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "provider" TEXT NOT NULL,
    "call" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "Operator_walletAddress_key" ON "Operator"("walletAddress");

-- CreateIndex
CREATE INDEX "OperatorSession_operatorId_idx" ON "OperatorSession"("operatorId");

-- CreateIndex
CREATE INDEX "OperatorSession_expiresAt_idx" ON "OperatorSession"("expiresAt");

-- CreateIndex
CREATE INDEX "AuditEvent_at_id_idx" ON "AuditEvent"("at", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_targetType_targetId_id_idx" ON "AuditEvent"("targetType", "targetId", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_operatorId_id_idx" ON "AuditEvent"("operatorId", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_action_id_idx" ON "AuditEvent"("action", "id");

-- CreateIndex
CREATE INDEX "UpstreamStatusEvent_orderId_id_idx" ON "UpstreamStatusEvent"("orderId", "id");

-- CreateIndex
CREATE INDEX "ProviderCallError_provider_id_idx" ON "ProviderCallError"("provider", "id");

-- The audit log is append-only: the database refuses to change or remove a row, whoever asks.
CREATE TRIGGER "AuditEvent_no_update" BEFORE UPDATE ON "AuditEvent"
BEGIN
  SELECT RAISE(ABORT, 'AuditEvent is append-only: UPDATE refused');
END;

CREATE TRIGGER "AuditEvent_no_delete" BEFORE DELETE ON "AuditEvent"
BEGIN
  SELECT RAISE(ABORT, 'AuditEvent is append-only: DELETE refused');
END;
