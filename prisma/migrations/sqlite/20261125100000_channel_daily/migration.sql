-- CreateTable
CREATE TABLE "ChannelDaily" (
    "resellerId" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "orders" INTEGER NOT NULL DEFAULT 0,
    "finished" INTEGER NOT NULL DEFAULT 0,
    "volume" TEXT NOT NULL DEFAULT '0',
    "profit" TEXT NOT NULL DEFAULT '0',

    PRIMARY KEY ("resellerId", "day", "channel", "currency")
);

-- The rollup of the orders and credits written so far: each opened order of a reseller (a deposit
-- address) counted on the UTC day of its createdAt in its fromCurrency, the finished ones'
-- fromAmount summed there ("k" = 'v'); each order_profit_settle entry on its own day in its
-- currency, under its order's channel ("k" = 'p'). The sums are exact integer arithmetic on the
-- decimal strings, exactly as migration ledger_daily makes them (SQLite's SUM() of text goes through
-- floats): the whole part and four integers of nine decimal places each summed per group, carried
-- with floor division, a negative sum carried again negated; the text is canonical. Dates are ISO
-- text with a zone as Prisma writes them (epoch milliseconds are read too).
WITH "src" AS (
  SELECT "resellerId", COALESCE("channel", '') AS "channel", "createdAt", "fromCurrency" AS "currency", 'v' AS "k",
    1 AS "n", CASE WHEN "status" = 'finished' THEN 1 ELSE 0 END AS "fin",
    CASE WHEN "status" = 'finished' THEN "fromAmount" ELSE '0' END AS "amount"
  FROM "Order" WHERE "resellerId" IS NOT NULL AND "payinAddress" IS NOT NULL
  UNION ALL
  SELECT e."resellerId", COALESCE(o."channel", ''), e."createdAt", e."currency", 'p', 0, 0, e."amount"
  FROM "LedgerEntry" e LEFT JOIN "Order" o ON o."id" = e."orderId"
  WHERE e."kind" = 'order_profit_settle'
), "entry" AS (
  SELECT "resellerId", "channel", "currency", "k", "n", "fin", "amount",
    CASE WHEN typeof("createdAt") IN ('integer', 'real') THEN strftime('%Y-%m-%d', "createdAt" / 1000, 'unixepoch')
         ELSE strftime('%Y-%m-%d', "createdAt") END AS "day",
    instr("amount", '.') AS "dot",
    CASE WHEN substr("amount", 1, 1) = '-' THEN -1 ELSE 1 END AS "sign",
    CASE WHEN instr("amount", '.') > 0 THEN substr("amount", instr("amount", '.') + 1) ELSE '' END
      || '000000000000000000000000000000000000' AS "frac"
  FROM "src"
), "summed" AS (
  SELECT "resellerId", "channel", "day", "currency", "k", SUM("n") AS "n", SUM("fin") AS "fin",
    SUM(CAST(CASE WHEN "dot" > 0 THEN substr("amount", 1, "dot" - 1) ELSE "amount" END AS INTEGER)) AS "w",
    SUM("sign" * CAST(substr("frac", 1, 9) AS INTEGER)) AS "d1",
    SUM("sign" * CAST(substr("frac", 10, 9) AS INTEGER)) AS "d2",
    SUM("sign" * CAST(substr("frac", 19, 9) AS INTEGER)) AS "d3",
    SUM("sign" * CAST(substr("frac", 28, 9) AS INTEGER)) AS "d4"
  FROM "entry" GROUP BY "resellerId", "channel", "day", "currency", "k"
),
-- x - floor(x / 10^9) * 10^9 is ((x % 10^9) + 10^9) % 10^9; SQLite's / and % truncate toward zero.
"s3" AS (SELECT *, "d3" + ("d4" - (("d4" % 1000000000) + 1000000000) % 1000000000) / 1000000000 AS "x3" FROM "summed"),
"s2" AS (SELECT *, "d2" + ("x3" - (("x3" % 1000000000) + 1000000000) % 1000000000) / 1000000000 AS "x2" FROM "s3"),
"s1" AS (SELECT *, "d1" + ("x2" - (("x2" % 1000000000) + 1000000000) % 1000000000) / 1000000000 AS "x1" FROM "s2"),
"signed" AS (
  SELECT "resellerId", "channel", "day", "currency", "k", "n", "fin", "s", "s" * "w" AS "w", "s" * "d1" AS "d1", "s" * "d2" AS "d2",
    "s" * "d3" AS "d3", "s" * "d4" AS "d4"
  FROM (SELECT *, CASE WHEN "w" + ("x1" - (("x1" % 1000000000) + 1000000000) % 1000000000) / 1000000000 < 0 THEN -1 ELSE 1 END AS "s" FROM "s1")
),
"t3" AS (SELECT *, "d3" + ("d4" - (("d4" % 1000000000) + 1000000000) % 1000000000) / 1000000000 AS "y3" FROM "signed"),
"t2" AS (SELECT *, "d2" + ("y3" - (("y3" % 1000000000) + 1000000000) % 1000000000) / 1000000000 AS "y2" FROM "t3"),
"t1" AS (SELECT *, "d1" + ("y2" - (("y2" % 1000000000) + 1000000000) % 1000000000) / 1000000000 AS "y1" FROM "t2"),
"carried" AS (
  SELECT "resellerId", "channel", "day", "currency", "k", "n", "fin", "s",
    "w" + ("y1" - (("y1" % 1000000000) + 1000000000) % 1000000000) / 1000000000 AS "whole",
    (("y1" % 1000000000) + 1000000000) % 1000000000 AS "r1",
    (("y2" % 1000000000) + 1000000000) % 1000000000 AS "r2",
    (("y3" % 1000000000) + 1000000000) % 1000000000 AS "r3",
    (("d4" % 1000000000) + 1000000000) % 1000000000 AS "r4"
  FROM "t1"
),
"text" AS (
  SELECT "resellerId", "channel", "day", "currency", "k", "n", "fin",
    CASE WHEN "s" < 0 THEN '-' ELSE '' END || "whole"
      || CASE WHEN "r1" = 0 AND "r2" = 0 AND "r3" = 0 AND "r4" = 0 THEN ''
              ELSE '.' || rtrim(printf('%09d%09d%09d%09d', "r1", "r2", "r3", "r4"), '0') END AS "sum"
  FROM "carried"
)
INSERT INTO "ChannelDaily" ("resellerId", "channel", "day", "currency", "orders", "finished", "volume", "profit")
SELECT "resellerId", "channel", "day", "currency", SUM("n"), SUM("fin"),
  COALESCE(MAX(CASE WHEN "k" = 'v' THEN "sum" END), '0'), COALESCE(MAX(CASE WHEN "k" = 'p' THEN "sum" END), '0')
FROM "text"
GROUP BY "resellerId", "channel", "day", "currency";
