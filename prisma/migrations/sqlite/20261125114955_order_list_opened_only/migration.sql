-- Issue 32: the Orders list's indexes (20261125101000_dashboard_indexes) hold only opened orders,
-- "payinAddress" IS NOT NULL, the condition the list and its CSV carry, written exactly so. The
-- list's capped count (up to 10,001 entries) is then read from the index alone: with the
-- condition outside the index, every entry counted read its table row too. Same names and
-- columns; a statement without the condition cannot use them.

-- DropIndex
DROP INDEX "Order_channel_resellerId_createdAt_id_idx";

-- DropIndex
DROP INDEX "Order_status_resellerId_createdAt_id_idx";

-- DropIndex
DROP INDEX "Order_resellerId_createdAt_id_idx";

-- CreateIndex
CREATE INDEX "Order_resellerId_createdAt_id_idx" ON "Order"("resellerId", "createdAt", "id") WHERE "payinAddress" IS NOT NULL;

-- CreateIndex
CREATE INDEX "Order_status_resellerId_createdAt_id_idx" ON "Order"("status", "resellerId", "createdAt", "id") WHERE "payinAddress" IS NOT NULL;

-- CreateIndex
CREATE INDEX "Order_channel_resellerId_createdAt_id_idx" ON "Order"("channel", "resellerId", "createdAt", "id") WHERE "payinAddress" IS NOT NULL;
