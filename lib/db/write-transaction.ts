import "server-only";
import { type Db, providerOf, sql, type Tx } from "./client";

/**
 * Runs `fn` in one transaction that holds the database's write lock before `fn` reads anything:
 * the way to open a transaction that posts to the ledger (or reads, then writes, what others
 * write concurrently).
 *
 * SQLite: Prisma's adapter begins every transaction DEFERRED (a plain BEGIN; it cannot be told
 * IMMEDIATE), so a transaction that reads first holds a snapshot, and its first write then fails
 * at once with SQLITE_BUSY_SNAPSHOT, which no busy wait cures, when another connection (the
 * worker, a CLI, a second app process) committed in between; the client runs it again from the
 * start (lib/db/client.ts), a few times at most. So the first statement here is a write that
 * changes nothing (an UPDATE of no row), which takes the write lock as BEGIN IMMEDIATE would,
 * waiting for another writer within the adapter's busy timeout, before any snapshot is taken.
 * The ledger's SQLite arithmetic (decimal.js read-then-update of Balance and the rollups) relies
 * on it too: nobody writes between its reads and its updates.
 *
 * PostgreSQL: a plain transaction; its writers lock the rows they change (conditional updates,
 * ON CONFLICT) and read committed data after waiting.
 */
export function writeTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>, opts?: { timeout?: number; maxWait?: number }): Promise<T> {
  return db.$transaction(async (tx) => {
    if (providerOf(tx) === "sqlite") await tx.$executeRaw(TAKE_WRITE_LOCK);
    return fn(tx);
  }, opts);
}

/** A write that matches no row: it fires no trigger, yet starts SQLite's write transaction (the RESERVED lock). */
const TAKE_WRITE_LOCK = sql`UPDATE "Balance" SET "updatedAt" = "updatedAt" WHERE 0`;
