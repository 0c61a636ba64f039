-- The request log stored in batches (lib/request-log/write.ts). The rows logged before this
-- migration are kept, each as a batch of one entry: [atMs, keyId, method, route, path, status,
-- errorCode, latencyMs, requestId].

-- CreateTable
CREATE TABLE "ApiRequestBatch" (
    "id" SERIAL NOT NULL,
    "resellerId" TEXT NOT NULL,
    "firstAt" TIMESTAMP(3) NOT NULL,
    "lastAt" TIMESTAMP(3) NOT NULL,
    "count" INTEGER NOT NULL,
    "entries" TEXT NOT NULL,

    CONSTRAINT "ApiRequestBatch_pkey" PRIMARY KEY ("id")
);

-- Carry the rows over, oldest first ("at" is UTC without a zone, as every timestamp here).
INSERT INTO "ApiRequestBatch" ("resellerId", "firstAt", "lastAt", "count", "entries")
SELECT "resellerId", "at", "at", 1,
       json_build_array(json_build_array(ROUND(EXTRACT(EPOCH FROM "at") * 1000)::bigint,
                                         "keyId", "method", "route", "path", "status", "errorCode", "latencyMs", "requestId"))::text
FROM "ApiRequestLog" ORDER BY "at", "id";

-- DropTable
DROP TABLE "ApiRequestLog";

-- CreateIndex
CREATE INDEX "ApiRequestBatch_resellerId_lastAt_id_firstAt_idx" ON "ApiRequestBatch"("resellerId", "lastAt", "id", "firstAt");

-- CreateIndex
CREATE INDEX "ApiRequestBatch_lastAt_idx" ON "ApiRequestBatch"("lastAt");
