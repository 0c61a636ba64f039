-- CreateTable
CREATE TABLE "UpstreamIntent" (
    "id" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "externalId" TEXT,
    "upstreamId" TEXT,
    "opened" TEXT,
    "outcome" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolvedAt" TIMESTAMP(3),

    CONSTRAINT "UpstreamIntent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "UpstreamIntent_outcome_createdAt_idx" ON "UpstreamIntent"("outcome", "createdAt");

-- CreateIndex
CREATE INDEX "UpstreamIntent_orderId_idx" ON "UpstreamIntent"("orderId");
