-- DropForeignKey
ALTER TABLE "LedgerEntry" DROP CONSTRAINT "LedgerEntry_orderId_fkey";

-- DropForeignKey
ALTER TABLE "LedgerEntry" DROP CONSTRAINT "LedgerEntry_resellerId_fkey";

-- DropForeignKey
ALTER TABLE "Order" DROP CONSTRAINT "Order_resellerId_fkey";

-- AlterTable (hand-edited: Prisma would drop and re-add the money columns, losing them: converting keeps them)
ALTER TABLE "LedgerEntry" ALTER COLUMN "amount" TYPE DECIMAL USING "amount"::numeric;

-- AlterTable (hand-edited as above)
ALTER TABLE "Order" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "lastError" TEXT,
ADD COLUMN     "leaseToken" TEXT,
ADD COLUMN     "leaseUntil" TIMESTAMP(3),
ALTER COLUMN "fromAmount" TYPE DECIMAL USING "fromAmount"::numeric,
ALTER COLUMN "rate" TYPE DECIMAL USING "rate"::numeric,
ALTER COLUMN "rawToAmount" TYPE DECIMAL USING "rawToAmount"::numeric,
ALTER COLUMN "toAmount" TYPE DECIMAL USING "toAmount"::numeric,
ALTER COLUMN "profit" TYPE DECIMAL USING "profit"::numeric,
ALTER COLUMN "payinAddress" DROP NOT NULL,
ALTER COLUMN "amountReceived" TYPE DECIMAL USING "amountReceived"::numeric,
ALTER COLUMN "refundAmount" TYPE DECIMAL USING "refundAmount"::numeric;

-- CreateTable
CREATE TABLE "Balance" (
    "resellerId" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "pending" DECIMAL NOT NULL DEFAULT 0,
    "available" DECIMAL NOT NULL DEFAULT 0,
    "reserved" DECIMAL NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Balance_pkey" PRIMARY KEY ("resellerId","currency")
);

-- AddForeignKey
ALTER TABLE "Order" ADD CONSTRAINT "Order_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "LedgerEntry" ADD CONSTRAINT "LedgerEntry_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "LedgerEntry" ADD CONSTRAINT "LedgerEntry_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- AddForeignKey
ALTER TABLE "Balance" ADD CONSTRAINT "Balance_resellerId_fkey" FOREIGN KEY ("resellerId") REFERENCES "Reseller"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- Balances never go negative: lib/ledger refuses such a change first, this is the backstop.
-- (A trigger, not a CHECK constraint: Prisma's WASM schema engine cannot read CHECK constraints
-- back through the driver adapter, so scripts/migrate-dev.mjs check would fail.)
CREATE FUNCTION "balance_non_negative"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."pending" < 0 OR NEW."available" < 0 OR NEW."reserved" < 0 THEN
    RAISE EXCEPTION 'Balance would go negative' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER "Balance_non_negative" BEFORE INSERT OR UPDATE ON "Balance"
  FOR EACH ROW EXECUTE FUNCTION "balance_non_negative"();

-- The ledger is append-only: the database refuses to change or remove an entry, whoever asks.
CREATE FUNCTION "ledger_entry_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'LedgerEntry is append-only: % refused', TG_OP USING ERRCODE = 'raise_exception';
END;
$$;

CREATE TRIGGER "LedgerEntry_append_only" BEFORE UPDATE OR DELETE ON "LedgerEntry"
  FOR EACH ROW EXECUTE FUNCTION "ledger_entry_append_only"();

CREATE TRIGGER "LedgerEntry_no_truncate" BEFORE TRUNCATE ON "LedgerEntry"
  FOR EACH STATEMENT EXECUTE FUNCTION "ledger_entry_append_only"();
