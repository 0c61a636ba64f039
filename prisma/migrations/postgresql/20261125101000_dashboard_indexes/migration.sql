-- Issue 32: the dashboard's lists and CSVs page by keyset (createdAt, id) for orders and by id for
-- ledger entries; each page starts at its cursor in one of these indexes and needs no sort.

-- DropIndex
DROP INDEX "Order_channel_resellerId_createdAt_idx";

-- CreateIndex
CREATE INDEX "LedgerEntry_resellerId_id_idx" ON "LedgerEntry"("resellerId", "id");

-- CreateIndex
CREATE INDEX "Order_resellerId_createdAt_id_idx" ON "Order"("resellerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Order_status_resellerId_createdAt_id_idx" ON "Order"("status", "resellerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Order_channel_resellerId_createdAt_id_idx" ON "Order"("channel", "resellerId", "createdAt", "id");
