-- CreateTable
CREATE TABLE "ApiRequestLog" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "resellerId" TEXT NOT NULL,
    "keyId" TEXT NOT NULL,
    "at" DATETIME NOT NULL,
    "method" TEXT NOT NULL,
    "route" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "statusClass" INTEGER NOT NULL,
    "errorCode" TEXT,
    "latencyMs" INTEGER NOT NULL,
    "requestId" TEXT NOT NULL
);

-- CreateIndex
CREATE INDEX "ApiRequestLog_resellerId_at_id_idx" ON "ApiRequestLog"("resellerId", "at", "id");

-- CreateIndex
CREATE INDEX "ApiRequestLog_keyId_at_id_idx" ON "ApiRequestLog"("keyId", "at", "id");

-- CreateIndex
CREATE INDEX "ApiRequestLog_resellerId_statusClass_at_id_idx" ON "ApiRequestLog"("resellerId", "statusClass", "at", "id");

-- CreateIndex
CREATE INDEX "ApiRequestLog_resellerId_route_at_id_idx" ON "ApiRequestLog"("resellerId", "route", "at", "id");

-- CreateIndex
CREATE INDEX "ApiRequestLog_at_idx" ON "ApiRequestLog"("at");
