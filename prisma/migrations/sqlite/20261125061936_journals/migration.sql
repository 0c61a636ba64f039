-- Double-entry journals (docs/ledger.md): every posting is a Journal of two or more lines that
-- sum to zero per currency. A reseller's lines stay LedgerEntry rows (their balances move with
-- them); every other account's lines are JournalLine rows.

-- AlterTable
ALTER TABLE "LedgerEntry" ADD COLUMN "journalId" TEXT;

-- CreateTable
CREATE TABLE "Journal" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "orderId" TEXT,
    "withdrawalId" TEXT,
    "lines" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "JournalLine" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "journalId" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "Journal_orderId_idx" ON "Journal"("orderId");

-- CreateIndex
CREATE INDEX "Journal_withdrawalId_idx" ON "Journal"("withdrawalId");

-- CreateIndex
CREATE INDEX "Journal_createdAt_idx" ON "Journal"("createdAt");

-- CreateIndex
CREATE INDEX "JournalLine_journalId_idx" ON "JournalLine"("journalId");

-- CreateIndex
CREATE INDEX "JournalLine_account_currency_idx" ON "JournalLine"("account", "currency");

-- CreateIndex
CREATE INDEX "LedgerEntry_journalId_idx" ON "LedgerEntry"("journalId");

-- The existing ledger, migrated without changing any balance: every entry keeps its row and
-- amount and gets a journal; the other side of each is booked where it belonged. Orders'
-- entries (and any entry that is not a withdrawal's): one journal each, against the provider's
-- commission (pending while the order was open, receivable once it finished) or, without an
-- order, the outside world. A withdrawal's entries: one journal per kind; paying out takes each
-- balance into conversion and the payout asset out of conversion to the hot wallet, at the
-- amounts recorded. Platform revenue was not booked before: migrated orders carry none.
-- (Negating a decimal string is a matter of its sign character: exact, no float.)
DROP TRIGGER "LedgerEntry_no_update";

UPDATE "LedgerEntry" SET "journalId" = 'm' || "id" WHERE "withdrawalId" IS NULL;
UPDATE "LedgerEntry" SET "journalId" = 'm' || "withdrawalId" || ':' || "kind" WHERE "withdrawalId" IS NOT NULL;

CREATE TRIGGER "LedgerEntry_no_update" BEFORE UPDATE ON "LedgerEntry"
BEGIN
  SELECT RAISE(ABORT, 'LedgerEntry is append-only: UPDATE refused');
END;

INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt")
SELECT e."journalId",
  CASE WHEN e."orderId" IS NULL THEN 'world'
       WHEN e."kind" = 'order_profit_settle' THEN 'provider:' || COALESCE(o."provider", 'simulated') || ':receivable'
       ELSE 'provider:' || COALESCE(o."provider", 'simulated') || ':pending' END,
  e."currency",
  CASE WHEN substr(e."amount", 1, 1) = '-' THEN substr(e."amount", 2) ELSE '-' || e."amount" END,
  e."createdAt"
FROM "LedgerEntry" e LEFT JOIN "Order" o ON o."id" = e."orderId"
WHERE e."withdrawalId" IS NULL
ORDER BY e."id";

INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt")
SELECT e."journalId", 'conversion', e."currency",
  CASE WHEN substr(e."amount", 1, 1) = '-' THEN substr(e."amount", 2) ELSE '-' || e."amount" END,
  e."createdAt"
FROM "LedgerEntry" e WHERE e."kind" = 'withdrawal_settle' ORDER BY e."id";

INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt")
SELECT 'm' || w."id" || ':withdrawal_settle', 'conversion', w."asset", '-' || w."amount", s."at"
FROM "Withdrawal" w
JOIN (SELECT "withdrawalId", MIN("createdAt") AS "at" FROM "LedgerEntry" WHERE "kind" = 'withdrawal_settle' GROUP BY "withdrawalId") s
  ON s."withdrawalId" = w."id"
ORDER BY w."id";

INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt")
SELECT 'm' || w."id" || ':withdrawal_settle', 'treasury:' || w."chainId" || ':' || w."asset", w."asset", w."amount", s."at"
FROM "Withdrawal" w
JOIN (SELECT "withdrawalId", MIN("createdAt") AS "at" FROM "LedgerEntry" WHERE "kind" = 'withdrawal_settle' GROUP BY "withdrawalId") s
  ON s."withdrawalId" = w."id"
ORDER BY w."id";

-- From now on (and for the migrated journals, inserted below): the Journal row is written after
-- its lines, and its insert is refused unless it has two or more lines, as many as it says, that
-- sum to zero in every currency. SQLite has no decimal type, and its arithmetic on text goes
-- through floats, so the sum is exact integer arithmetic on the decimal strings: each amount is
-- split into its whole part and four integers of nine decimal places each (with the amount's
-- sign), summed per currency, and the sums carried from the last places up; an amount with more
-- than 36 decimal places is refused.
CREATE TRIGGER "Journal_balanced" BEFORE INSERT ON "Journal"
WHEN NEW."lines" < 2
  OR NEW."lines" <> (SELECT COUNT(*) FROM "LedgerEntry" WHERE "journalId" = NEW."id") + (SELECT COUNT(*) FROM "JournalLine" WHERE "journalId" = NEW."id")
  OR EXISTS (
    SELECT 1 FROM (
      SELECT "amount" FROM "LedgerEntry" WHERE "journalId" = NEW."id"
      UNION ALL SELECT "amount" FROM "JournalLine" WHERE "journalId" = NEW."id")
    WHERE instr("amount", '.') > 0 AND length("amount") - instr("amount", '.') > 36)
  OR EXISTS (
    SELECT 1 FROM (
      SELECT "w", "d4", "k3", "k2", "d1" + "k2" / 1000000000 AS "k1" FROM (
        SELECT "w", "d1", "d4", "k3", "d2" + "k3" / 1000000000 AS "k2" FROM (
          SELECT "w", "d1", "d2", "d4", "d3" + "d4" / 1000000000 AS "k3" FROM (
            SELECT "currency", SUM("whole") AS "w", SUM("p1") AS "d1", SUM("p2") AS "d2", SUM("p3") AS "d3", SUM("p4") AS "d4" FROM (
              SELECT "currency",
                CAST(CASE WHEN "dot" > 0 THEN substr("amount", 1, "dot" - 1) ELSE "amount" END AS INTEGER) AS "whole",
                "sign" * CAST(substr("frac", 1, 9) AS INTEGER) AS "p1",
                "sign" * CAST(substr("frac", 10, 9) AS INTEGER) AS "p2",
                "sign" * CAST(substr("frac", 19, 9) AS INTEGER) AS "p3",
                "sign" * CAST(substr("frac", 28, 9) AS INTEGER) AS "p4"
              FROM (
                SELECT "currency", "amount", instr("amount", '.') AS "dot",
                  CASE WHEN substr("amount", 1, 1) = '-' THEN -1 ELSE 1 END AS "sign",
                  CASE WHEN instr("amount", '.') > 0 THEN substr("amount", instr("amount", '.') + 1) ELSE '' END
                    || '000000000000000000000000000000000000' AS "frac"
                FROM (
                  SELECT "currency", "amount" FROM "LedgerEntry" WHERE "journalId" = NEW."id"
                  UNION ALL SELECT "currency", "amount" FROM "JournalLine" WHERE "journalId" = NEW."id")))
            GROUP BY "currency"))))
    WHERE "d4" % 1000000000 <> 0 OR "k3" % 1000000000 <> 0 OR "k2" % 1000000000 <> 0 OR "k1" % 1000000000 <> 0
      OR "w" + "k1" / 1000000000 <> 0)
BEGIN
  SELECT RAISE(ABORT, 'Journal does not balance: it needs two or more lines, as many as it says, summing to zero in every currency');
END;

INSERT INTO "Journal" ("id", "kind", "orderId", "withdrawalId", "lines", "createdAt")
SELECT e."journalId", 'migrated:' || e."kind", MIN(e."orderId"), MIN(e."withdrawalId"),
  COUNT(*) + (SELECT COUNT(*) FROM "JournalLine" l WHERE l."journalId" = e."journalId"), MIN(e."createdAt")
FROM "LedgerEntry" e GROUP BY e."journalId", e."kind";

-- Lines are written before their journal, into an open one: a line without a journal id, or for
-- a journal already written, is refused.
CREATE TRIGGER "LedgerEntry_in_open_journal" BEFORE INSERT ON "LedgerEntry"
WHEN NEW."journalId" IS NULL OR EXISTS (SELECT 1 FROM "Journal" WHERE "id" = NEW."journalId")
BEGIN
  SELECT RAISE(ABORT, 'LedgerEntry must belong to a journal not yet written');
END;

CREATE TRIGGER "JournalLine_in_open_journal" BEFORE INSERT ON "JournalLine"
WHEN EXISTS (SELECT 1 FROM "Journal" WHERE "id" = NEW."journalId")
BEGIN
  SELECT RAISE(ABORT, 'JournalLine must belong to a journal not yet written');
END;

CREATE TRIGGER "JournalLine_amount_is_decimal" BEFORE INSERT ON "JournalLine"
WHEN typeof(NEW."amount") <> 'text'
  OR NOT (NEW."amount" GLOB '[0-9]*' OR NEW."amount" GLOB '-[0-9]*')
  OR NEW."amount" GLOB '*[^0-9.-]*'
  OR NEW."amount" GLOB '?*-*'
  OR NEW."amount" GLOB '*.*.*'
  OR NEW."amount" GLOB '*.'
BEGIN
  SELECT RAISE(ABORT, 'JournalLine.amount must be a decimal string');
END;

-- Append-only, like the entries.
CREATE TRIGGER "Journal_no_update" BEFORE UPDATE ON "Journal"
BEGIN
  SELECT RAISE(ABORT, 'Journal is append-only: UPDATE refused');
END;

CREATE TRIGGER "Journal_no_delete" BEFORE DELETE ON "Journal"
BEGIN
  SELECT RAISE(ABORT, 'Journal is append-only: DELETE refused');
END;

CREATE TRIGGER "JournalLine_no_update" BEFORE UPDATE ON "JournalLine"
BEGIN
  SELECT RAISE(ABORT, 'JournalLine is append-only: UPDATE refused');
END;

CREATE TRIGGER "JournalLine_no_delete" BEFORE DELETE ON "JournalLine"
BEGIN
  SELECT RAISE(ABORT, 'JournalLine is append-only: DELETE refused');
END;
