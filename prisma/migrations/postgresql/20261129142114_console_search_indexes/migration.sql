-- CreateIndex
CREATE INDEX "Order_createdAt_id_idx" ON "Order"("createdAt", "id") WHERE ("payinAddress" IS NOT NULL);

-- CreateIndex
CREATE INDEX "Order_status_createdAt_id_idx" ON "Order"("status", "createdAt", "id") WHERE ("payinAddress" IS NOT NULL);

-- CreateIndex
CREATE INDEX "Order_upstreamId_idx" ON "Order"("upstreamId");

-- CreateIndex
CREATE INDEX "Order_payinAddress_idx" ON "Order"("payinAddress");

-- CreateIndex
CREATE INDEX "Order_payoutAddress_idx" ON "Order"("payoutAddress");

-- CreateIndex
CREATE INDEX "Order_refundAddress_idx" ON "Order"("refundAddress");

-- CreateIndex
CREATE INDEX "Order_payinHash_idx" ON "Order"("payinHash");

-- CreateIndex
CREATE INDEX "Order_payoutHash_idx" ON "Order"("payoutHash");

-- CreateIndex
CREATE INDEX "Order_refundHash_idx" ON "Order"("refundHash");

-- CreateIndex
CREATE INDEX "Withdrawal_createdAt_id_idx" ON "Withdrawal"("createdAt", "id");

-- CreateIndex
CREATE INDEX "Withdrawal_status_createdAt_id_idx" ON "Withdrawal"("status", "createdAt", "id");
