-- AlterTable
ALTER TABLE "DashboardSession" ADD COLUMN     "walletAddress" TEXT;

-- CreateTable
CREATE TABLE "ResellerMember" (
    "id" TEXT NOT NULL,
    "resellerId" TEXT NOT NULL,
    "walletAddress" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ResellerMember_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ResellerInvite" (
    "id" TEXT NOT NULL,
    "resellerId" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "usedBy" TEXT,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ResellerInvite_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TeamEvent" (
    "id" SERIAL NOT NULL,
    "resellerId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target" TEXT,
    "before" TEXT,
    "after" TEXT,

    CONSTRAINT "TeamEvent_pkey" PRIMARY KEY ("id")
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

-- AddForeignKey
ALTER TABLE "ResellerMember" ADD CONSTRAINT "ResellerMember_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ResellerInvite" ADD CONSTRAINT "ResellerInvite_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Every existing reseller's wallet becomes its team's owner; its sessions belong to that wallet.
INSERT INTO "ResellerMember" ("id", "resellerId", "walletAddress", "role", "createdAt")
SELECT 'owner_' || "id", "id", "walletAddress", 'owner', "createdAt" FROM "Reseller";
UPDATE "DashboardSession" s SET "walletAddress" = r."walletAddress" FROM "Reseller" r WHERE r."id" = s."resellerId";

-- The team's record is append-only: the database refuses to change or remove a row, whoever asks.
CREATE FUNCTION "team_event_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'TeamEvent is append-only: % refused', TG_OP USING ERRCODE = 'raise_exception';
END;
$$;

CREATE TRIGGER "TeamEvent_append_only" BEFORE UPDATE OR DELETE ON "TeamEvent"
  FOR EACH ROW EXECUTE FUNCTION "team_event_append_only"();

CREATE TRIGGER "TeamEvent_no_truncate" BEFORE TRUNCATE ON "TeamEvent"
  FOR EACH STATEMENT EXECUTE FUNCTION "team_event_append_only"();
