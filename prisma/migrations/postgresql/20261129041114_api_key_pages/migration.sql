-- DropIndex
DROP INDEX "ApiKey_resellerId_idx";

-- CreateIndex
CREATE INDEX "ApiKey_resellerId_revokedAt_createdAt_id_idx" ON "ApiKey"("resellerId", "revokedAt", "createdAt", "id");
