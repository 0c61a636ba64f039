-- CreateTable
CREATE TABLE "ChannelDaily" (
    "resellerId" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "orders" INTEGER NOT NULL DEFAULT 0,
    "finished" INTEGER NOT NULL DEFAULT 0,
    "volume" DECIMAL NOT NULL DEFAULT 0,
    "profit" DECIMAL NOT NULL DEFAULT 0,

    CONSTRAINT "ChannelDaily_pkey" PRIMARY KEY ("resellerId","day","channel","currency")
);

-- The rollup of the orders and credits written so far (NUMERIC sums are exact): each opened order
-- of a reseller (a deposit address) counted on the day of its createdAt in its fromCurrency, the
-- finished ones' fromAmount summed there; each order_profit_settle entry on its own day in its
-- currency, under its order's channel. createdAt holds UTC (timestamp(3) without a zone).
INSERT INTO "ChannelDaily" ("resellerId", "channel", "day", "currency", "orders", "finished", "volume", "profit")
SELECT "resellerId", "channel", "day", "currency", SUM("orders"), SUM("finished"), SUM("volume"), SUM("profit")
FROM (
  SELECT "resellerId", COALESCE("channel", '') AS "channel", to_char("createdAt", 'YYYY-MM-DD') AS "day", "fromCurrency" AS "currency",
    1 AS "orders", CASE WHEN "status" = 'finished' THEN 1 ELSE 0 END AS "finished",
    CASE WHEN "status" = 'finished' THEN "fromAmount" ELSE 0 END AS "volume", 0::numeric AS "profit"
  FROM "Order" WHERE "resellerId" IS NOT NULL AND "payinAddress" IS NOT NULL
  UNION ALL
  SELECT e."resellerId", COALESCE(o."channel", ''), to_char(e."createdAt", 'YYYY-MM-DD'), e."currency", 0, 0, 0, e."amount"
  FROM "LedgerEntry" e LEFT JOIN "Order" o ON o."id" = e."orderId"
  WHERE e."kind" = 'order_profit_settle'
) "rows"
GROUP BY "resellerId", "channel", "day", "currency";
