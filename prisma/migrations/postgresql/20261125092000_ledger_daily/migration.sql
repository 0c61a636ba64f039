-- CreateTable
CREATE TABLE "LedgerDaily" (
    "resellerId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount" DECIMAL NOT NULL DEFAULT 0,

    CONSTRAINT "LedgerDaily_pkey" PRIMARY KEY ("resellerId","kind","bucket","day","currency")
);

-- The rollup of the entries written so far: NUMERIC sums are exact. An entry's day is the date
-- of its createdAt, which holds UTC (timestamp(3) without a zone, as Prisma writes it).
INSERT INTO "LedgerDaily" ("resellerId", "kind", "bucket", "day", "currency", "amount")
SELECT "resellerId", "kind", "bucket", to_char("createdAt", 'YYYY-MM-DD'), "currency", SUM("amount")
FROM "LedgerEntry"
GROUP BY "resellerId", "kind", "bucket", to_char("createdAt", 'YYYY-MM-DD'), "currency";
