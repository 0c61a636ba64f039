-- The request log stored in batches (lib/request-log/write.ts). The rows logged before this
-- migration are kept, each as a batch of one entry: [atMs, keyId, method, route, path, status,
-- errorCode, latencyMs, requestId].

-- CreateTable
CREATE TABLE "ApiRequestBatch" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "resellerId" TEXT NOT NULL,
    "firstAt" DATETIME NOT NULL,
    "lastAt" DATETIME NOT NULL,
    "count" INTEGER NOT NULL,
    "entries" TEXT NOT NULL
);

-- Carry the rows over, oldest first (julianday keeps a millisecond exactly: the rounding is on purpose).
INSERT INTO "ApiRequestBatch" ("resellerId", "firstAt", "lastAt", "count", "entries")
SELECT "resellerId", "at", "at", 1,
       json_array(json_array(CAST(ROUND((julianday("at") - 2440587.5) * 86400000.0) AS INTEGER),
                             "keyId", "method", "route", "path", "status", "errorCode", "latencyMs", "requestId"))
FROM "ApiRequestLog" ORDER BY "at", "id";

-- DropTable
PRAGMA foreign_keys=off;
DROP TABLE "ApiRequestLog";
PRAGMA foreign_keys=on;

-- CreateIndex
CREATE INDEX "ApiRequestBatch_resellerId_lastAt_id_firstAt_idx" ON "ApiRequestBatch"("resellerId", "lastAt", "id", "firstAt");

-- CreateIndex
CREATE INDEX "ApiRequestBatch_lastAt_idx" ON "ApiRequestBatch"("lastAt");
