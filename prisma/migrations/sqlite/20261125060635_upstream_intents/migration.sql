-- CreateTable
CREATE TABLE "UpstreamIntent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "orderId" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "externalId" TEXT,
    "upstreamId" TEXT,
    "opened" TEXT,
    "outcome" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolvedAt" DATETIME
);

-- CreateIndex
CREATE INDEX "UpstreamIntent_outcome_createdAt_idx" ON "UpstreamIntent"("outcome", "createdAt");

-- CreateIndex
CREATE INDEX "UpstreamIntent_orderId_idx" ON "UpstreamIntent"("orderId");
