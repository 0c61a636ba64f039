-- AlterTable
ALTER TABLE "DashboardSession" ADD COLUMN "walletAddress" TEXT;

-- CreateTable
CREATE TABLE "ResellerMember" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "resellerId" TEXT NOT NULL,
    "walletAddress" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ResellerMember_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ResellerInvite" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "resellerId" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "usedAt" DATETIME,
    "usedBy" TEXT,
    "revokedAt" DATETIME,
    CONSTRAINT "ResellerInvite_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "TeamEvent" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "resellerId" TEXT NOT NULL,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target" TEXT,
    "before" TEXT,
    "after" TEXT
);

-- CreateIndex
CREATE INDEX "ResellerMember_walletAddress_idx" ON "ResellerMember"("walletAddress");

-- CreateIndex
CREATE UNIQUE INDEX "ResellerMember_resellerId_walletAddress_key" ON "ResellerMember"("resellerId", "walletAddress");

-- CreateIndex
CREATE UNIQUE INDEX "ResellerInvite_secretHash_key" ON "ResellerInvite"("secretHash");

-- CreateIndex
CREATE INDEX "ResellerInvite_resellerId_createdAt_idx" ON "ResellerInvite"("resellerId", "createdAt");

-- CreateIndex
CREATE INDEX "TeamEvent_resellerId_id_idx" ON "TeamEvent"("resellerId", "id");

-- CreateIndex
CREATE INDEX "DashboardSession_walletAddress_idx" ON "DashboardSession"("walletAddress");

-- Every existing reseller's wallet becomes its team's owner; its sessions belong to that wallet.
INSERT INTO "ResellerMember" ("id", "resellerId", "walletAddress", "role", "createdAt")
SELECT 'owner_' || "id", "id", "walletAddress", 'owner', "createdAt" FROM "Reseller";
UPDATE "DashboardSession" SET "walletAddress" = (SELECT "walletAddress" FROM "Reseller" WHERE "Reseller"."id" = "DashboardSession"."resellerId");

-- The team's record is append-only: the database refuses to change or remove a row, whoever asks.
CREATE TRIGGER "TeamEvent_no_update" BEFORE UPDATE ON "TeamEvent"
BEGIN
  SELECT RAISE(ABORT, 'TeamEvent is append-only: UPDATE refused');
END;

CREATE TRIGGER "TeamEvent_no_delete" BEFORE DELETE ON "TeamEvent"
BEGIN
  SELECT RAISE(ABORT, 'TeamEvent is append-only: DELETE refused');
END;
