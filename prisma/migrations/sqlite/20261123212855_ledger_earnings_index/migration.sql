-- CreateIndex
CREATE INDEX "LedgerEntry_resellerId_kind_createdAt_idx" ON "LedgerEntry"("resellerId", "kind", "createdAt");
