-- AlterTable
-- Written as ADD COLUMN instead of Prisma's generated table rebuild: the rebuild drops
-- "Reseller", and inside the runner's transaction (where PRAGMA foreign_keys cannot be
-- switched off) that drop cascades to every ApiKey and LedgerEntry row.
ALTER TABLE "Reseller" ADD COLUMN "sessionVersion" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "Reseller" ADD COLUMN "revokedAt" DATETIME;
