-- Double-entry journals (docs/ledger.md): every posting is a Journal of two or more lines that
-- sum to zero per currency. A reseller's lines stay LedgerEntry rows (their balances move with
-- them); every other account's lines are JournalLine rows.

-- AlterTable
ALTER TABLE "LedgerEntry" ADD COLUMN     "journalId" TEXT;

-- CreateTable
CREATE TABLE "Journal" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "orderId" TEXT,
    "withdrawalId" TEXT,
    "lines" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Journal_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "JournalLine" (
    "id" SERIAL NOT NULL,
    "journalId" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "amount" DECIMAL NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "JournalLine_pkey" PRIMARY KEY ("id")
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
ALTER TABLE "LedgerEntry" DISABLE TRIGGER "LedgerEntry_append_only";

UPDATE "LedgerEntry" SET "journalId" = 'm' || "id" WHERE "withdrawalId" IS NULL;
UPDATE "LedgerEntry" SET "journalId" = 'm' || "withdrawalId" || ':' || "kind" WHERE "withdrawalId" IS NOT NULL;

ALTER TABLE "LedgerEntry" ENABLE TRIGGER "LedgerEntry_append_only";

INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt")
SELECT e."journalId",
  CASE WHEN e."orderId" IS NULL THEN 'world'
       WHEN e."kind" = 'order_profit_settle' THEN 'provider:' || COALESCE(o."provider", 'simulated') || ':receivable'
       ELSE 'provider:' || COALESCE(o."provider", 'simulated') || ':pending' END,
  e."currency", -e."amount", e."createdAt"
FROM "LedgerEntry" e LEFT JOIN "Order" o ON o."id" = e."orderId"
WHERE e."withdrawalId" IS NULL
ORDER BY e."id";

INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt")
SELECT e."journalId", 'conversion', e."currency", -e."amount", e."createdAt"
FROM "LedgerEntry" e WHERE e."kind" = 'withdrawal_settle' ORDER BY e."id";

INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt")
SELECT 'm' || w."id" || ':withdrawal_settle', x."account", w."asset", x."sign" * w."amount", s."at"
FROM "Withdrawal" w
JOIN (SELECT "withdrawalId", MIN("createdAt") AS "at" FROM "LedgerEntry" WHERE "kind" = 'withdrawal_settle' GROUP BY "withdrawalId") s
  ON s."withdrawalId" = w."id"
CROSS JOIN LATERAL (VALUES ('conversion', -1), ('treasury:' || w."chainId" || ':' || w."asset", 1)) AS x("account", "sign")
ORDER BY w."id", x."sign";

INSERT INTO "Journal" ("id", "kind", "orderId", "withdrawalId", "lines", "createdAt")
SELECT e."journalId", 'migrated:' || e."kind", MIN(e."orderId"), MIN(e."withdrawalId"),
  COUNT(*) + (SELECT COUNT(*) FROM "JournalLine" l WHERE l."journalId" = e."journalId"), MIN(e."createdAt")
FROM "LedgerEntry" e GROUP BY e."journalId", e."kind";

-- Every migrated journal must balance; the migration fails (and changes nothing) otherwise.
DO $$
DECLARE bad text;
BEGIN
  SELECT j."journalId" INTO bad FROM (
    SELECT "journalId", "currency", "amount" FROM "LedgerEntry"
    UNION ALL SELECT "journalId", "currency", "amount" FROM "JournalLine") j
  GROUP BY j."journalId", j."currency" HAVING SUM(j."amount") <> 0 LIMIT 1;
  IF bad IS NOT NULL THEN RAISE EXCEPTION 'migrated journal % does not balance', bad; END IF;
END $$;


-- From now on: the Journal row is written after its lines (in the same statement or a later
-- one of the transaction), and its insert is refused unless the journal has two or more lines,
-- as many as it says, that sum to zero in every currency (NUMERIC: exact). An AFTER trigger fires
-- at the end of the inserting statement, so lines written by the same statement (the hot path's
-- data-modifying CTEs) are counted. A line without a journal id, or for a journal already
-- written, is refused.
CREATE FUNCTION "journal_balanced"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  n int;
  bad text;
BEGIN
  SELECT COUNT(*) INTO n FROM (
    SELECT 1 FROM "LedgerEntry" WHERE "journalId" = NEW."id" UNION ALL SELECT 1 FROM "JournalLine" WHERE "journalId" = NEW."id") x;
  IF n < 2 OR n <> NEW."lines" THEN
    RAISE EXCEPTION 'Journal % does not balance: it has % lines, it says %', NEW."id", n, NEW."lines" USING ERRCODE = 'check_violation';
  END IF;
  SELECT "currency" INTO bad FROM (
    SELECT "currency", "amount" FROM "LedgerEntry" WHERE "journalId" = NEW."id"
    UNION ALL SELECT "currency", "amount" FROM "JournalLine" WHERE "journalId" = NEW."id") x
  GROUP BY "currency" HAVING SUM("amount") <> 0 LIMIT 1;
  IF bad IS NOT NULL THEN
    RAISE EXCEPTION 'Journal % does not balance in %', NEW."id", bad USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "Journal_balanced" AFTER INSERT ON "Journal"
  FOR EACH ROW EXECUTE FUNCTION "journal_balanced"();

CREATE FUNCTION "journal_line_open"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."journalId" IS NULL OR EXISTS (SELECT 1 FROM "Journal" WHERE "id" = NEW."journalId") THEN
    RAISE EXCEPTION '% must belong to a journal not yet written', TG_TABLE_NAME USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER "LedgerEntry_in_open_journal" BEFORE INSERT ON "LedgerEntry"
  FOR EACH ROW EXECUTE FUNCTION "journal_line_open"();
CREATE TRIGGER "JournalLine_in_open_journal" BEFORE INSERT ON "JournalLine"
  FOR EACH ROW EXECUTE FUNCTION "journal_line_open"();

CREATE FUNCTION "journal_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'raise_exception';
END;
$$;

CREATE TRIGGER "Journal_append_only" BEFORE UPDATE OR DELETE ON "Journal"
  FOR EACH ROW EXECUTE FUNCTION "journal_append_only"();
CREATE TRIGGER "Journal_no_truncate" BEFORE TRUNCATE ON "Journal"
  FOR EACH STATEMENT EXECUTE FUNCTION "journal_append_only"();
CREATE TRIGGER "JournalLine_append_only" BEFORE UPDATE OR DELETE ON "JournalLine"
  FOR EACH ROW EXECUTE FUNCTION "journal_append_only"();
CREATE TRIGGER "JournalLine_no_truncate" BEFORE TRUNCATE ON "JournalLine"
  FOR EACH STATEMENT EXECUTE FUNCTION "journal_append_only"();
