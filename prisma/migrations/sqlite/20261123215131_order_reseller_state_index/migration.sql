-- CreateIndex (first: the reseller's orders are never without an index)
CREATE INDEX "Order_resellerId_createdAt_status_idx" ON "Order"("resellerId", "createdAt", "status");

-- DropIndex
DROP INDEX "Order_resellerId_createdAt_idx";
