-- CreateTable
CREATE TABLE "LedgerDaily" (
    "resellerId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount" TEXT NOT NULL DEFAULT '0',

    PRIMARY KEY ("resellerId", "kind", "bucket", "day", "currency")
);

-- The rollup of the entries written so far. SQLite has no decimal type and its SUM() of text
-- goes through floats, so the sums are exact integer arithmetic on the decimal strings, as the
-- Journal_balanced trigger makes them (migration journals): each amount is split into its whole
-- part and four integers of nine decimal places each (with the amount's sign; no entry has more
-- than 36 places, that trigger refuses them), summed per group, then carried from the last places
-- up with floor division so that every group of nine places lands in [0, 10^9). The sign of the
-- sum is the sign of the whole part so carried; a negative sum is carried again negated, so its
-- text is "-" and its magnitude's digits. The text is canonical: no trailing zeros, "0" for zero.
-- An entry's day is the UTC date of its createdAt (Prisma writes ISO text with a zone; epoch
-- milliseconds are read too).
WITH "entry" AS (
  SELECT "resellerId", "kind", "bucket", "currency", "amount",
    CASE WHEN typeof("createdAt") IN ('integer', 'real') THEN strftime('%Y-%m-%d', "createdAt" / 1000, 'unixepoch')
         ELSE strftime('%Y-%m-%d', "createdAt") END AS "day",
    instr("amount", '.') AS "dot",
    CASE WHEN substr("amount", 1, 1) = '-' THEN -1 ELSE 1 END AS "sign",
    CASE WHEN instr("amount", '.') > 0 THEN substr("amount", instr("amount", '.') + 1) ELSE '' END
      || '000000000000000000000000000000000000' AS "frac"
  FROM "LedgerEntry"
), "summed" AS (
  SELECT "resellerId", "kind", "bucket", "day", "currency",
    SUM(CAST(CASE WHEN "dot" > 0 THEN substr("amount", 1, "dot" - 1) ELSE "amount" END AS INTEGER)) AS "w",
    SUM("sign" * CAST(substr("frac", 1, 9) AS INTEGER)) AS "d1",
    SUM("sign" * CAST(substr("frac", 10, 9) AS INTEGER)) AS "d2",
    SUM("sign" * CAST(substr("frac", 19, 9) AS INTEGER)) AS "d3",
    SUM("sign" * CAST(substr("frac", 28, 9) AS INTEGER)) AS "d4"
  FROM "entry" GROUP BY "resellerId", "kind", "bucket", "day", "currency"
),
-- x - floor(x / 10^9) * 10^9 is ((x % 10^9) + 10^9) % 10^9; SQLite's / and % truncate toward zero.
"s3" AS (SELECT *, "d3" + ("d4" - (("d4" % 1000000000) + 1000000000) % 1000000000) / 1000000000 AS "x3" FROM "summed"),
"s2" AS (SELECT *, "d2" + ("x3" - (("x3" % 1000000000) + 1000000000) % 1000000000) / 1000000000 AS "x2" FROM "s3"),
"s1" AS (SELECT *, "d1" + ("x2" - (("x2" % 1000000000) + 1000000000) % 1000000000) / 1000000000 AS "x1" FROM "s2"),
"signed" AS (
  SELECT "resellerId", "kind", "bucket", "day", "currency", "s", "s" * "w" AS "w", "s" * "d1" AS "d1", "s" * "d2" AS "d2",
    "s" * "d3" AS "d3", "s" * "d4" AS "d4"
  FROM (SELECT *, CASE WHEN "w" + ("x1" - (("x1" % 1000000000) + 1000000000) % 1000000000) / 1000000000 < 0 THEN -1 ELSE 1 END AS "s" FROM "s1")
),
"t3" AS (SELECT *, "d3" + ("d4" - (("d4" % 1000000000) + 1000000000) % 1000000000) / 1000000000 AS "y3" FROM "signed"),
"t2" AS (SELECT *, "d2" + ("y3" - (("y3" % 1000000000) + 1000000000) % 1000000000) / 1000000000 AS "y2" FROM "t3"),
"t1" AS (SELECT *, "d1" + ("y2" - (("y2" % 1000000000) + 1000000000) % 1000000000) / 1000000000 AS "y1" FROM "t2"),
"carried" AS (
  SELECT "resellerId", "kind", "bucket", "day", "currency", "s",
    "w" + ("y1" - (("y1" % 1000000000) + 1000000000) % 1000000000) / 1000000000 AS "whole",
    (("y1" % 1000000000) + 1000000000) % 1000000000 AS "r1",
    (("y2" % 1000000000) + 1000000000) % 1000000000 AS "r2",
    (("y3" % 1000000000) + 1000000000) % 1000000000 AS "r3",
    (("d4" % 1000000000) + 1000000000) % 1000000000 AS "r4"
  FROM "t1"
)
INSERT INTO "LedgerDaily" ("resellerId", "kind", "bucket", "day", "currency", "amount")
SELECT "resellerId", "kind", "bucket", "day", "currency",
  CASE WHEN "s" < 0 THEN '-' ELSE '' END || "whole"
    || CASE WHEN "r1" = 0 AND "r2" = 0 AND "r3" = 0 AND "r4" = 0 THEN ''
            ELSE '.' || rtrim(printf('%09d%09d%09d%09d', "r1", "r2", "r3", "r4"), '0') END
FROM "carried";
