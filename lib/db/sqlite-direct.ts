import "server-only";
import { setTimeout as sleep } from "node:timers/promises";
import type Database from "better-sqlite3";
import { type Db, type Driver, driverOf } from "./client";

// SQLite, for the few hot-path writes (opening an order): a write transaction run
// synchronously on a connection of our own, with statements prepared once. Through Prisma
// each statement of such a transaction went through its query interpreter and the adapter
// prepared it again; the transaction held the adapter's one connection across awaits, so
// every opening queued behind the others (bench/README.md).
//
// The transaction never awaits, so it holds the write lock only for its own few statements.
// When someone else holds the lock (this process's Prisma connection in a transaction, or
// another process) it does not wait in place, which would block the event loop that the
// holder may need to finish: it retries a little later, up to WRITE_DEADLINE_MS.
//
// Group commit: the writes asked for in one turn of the event loop share one transaction,
// each in its own savepoint, and so one COMMIT. With SQLite's default synchronous=FULL a
// commit is an fsync of the WAL (about 170 µs here, on the event loop), and POST /exchange
// made two per order; under load a commit now carries many of them. Each caller still hears
// of its write only after the COMMIT that made it durable, and a function that throws rolls
// back its own writes only.

const WRITE_DEADLINE_MS = 10_000;

/** A value as Prisma's better-sqlite3 adapter writes it: dates as ISO text with "+00:00", booleans as 1/0. */
export function sqliteValue(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString().replace("Z", "+00:00");
  if (typeof v === "boolean") return v ? 1 : 0;
  return v;
}

/**
 * A DateTime column's stored value as Prisma's client reads it: epoch milliseconds, or ISO-like
 * text; text with no zone is UTC (SQLite's CURRENT_TIMESTAMP writes "YYYY-MM-DD HH:MM:SS"),
 * a "+HH" zone gets its minutes. Null stays null.
 */
export function sqliteDate(v: unknown): Date | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "number" || typeof v === "bigint") return new Date(Number(v));
  let text = String(v).replace(" ", "T");
  const zone = /(Z|[+-]\d\d(:?\d\d)?)$/.exec(text.slice(10));
  if (!text.includes("T")) text = `${text}T00:00:00Z`;
  else if (!zone) text = `${text}Z`;
  else if (zone[1].length === 3) text = `${text}:00`;
  return new Date(text);
}

const prepared = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** A statement of `conn`, prepared once. */
export function statementOf(conn: Database.Database, sql: string): Database.Statement {
  let m = prepared.get(conn);
  if (!m) {
    m = new Map();
    prepared.set(conn, m);
  }
  let s = m.get(sql);
  if (!s) {
    s = conn.prepare(sql);
    m.set(sql, s);
  }
  return s;
}

const isBusy = (e: unknown) => typeof e === "object" && e !== null && /^SQLITE_BUSY/.test(String((e as { code?: string }).code));

/** Most writes one transaction carries: each runs on the event loop, so a batch is bounded. */
const MAX_BATCH = 64;

interface QueuedWrite {
  fn: (conn: Database.Database) => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  deadline: number;
}

interface WriteQueue {
  items: QueuedWrite[];
  /** A flush is scheduled or under way; new writes just join the queue. */
  active: boolean;
}

const queues = new WeakMap<Driver, WriteQueue>();

/**
 * Runs `fn` in an IMMEDIATE transaction on the client's writer connection, in its own
 * savepoint, beside the other writes asked for in the same turn of the event loop (group
 * commit, above). Resolves once that transaction is committed; rejects, with its own writes
 * rolled back, when `fn` throws. `fn` must be synchronous.
 */
export function writeOnSqlite<T>(db: Db, fn: (conn: Database.Database) => T): Promise<T> {
  const driver = driverOf(db);
  if (driver.kind !== "sqlite") return Promise.reject(new Error("writeOnSqlite is for SQLite"));
  let q = queues.get(driver);
  if (!q) {
    q = { items: [], active: false };
    queues.set(driver, q);
  }
  const queue = q;
  return new Promise<T>((resolve, reject) => {
    queue.items.push({ fn, resolve: resolve as (v: unknown) => void, reject, deadline: Date.now() + WRITE_DEADLINE_MS });
    if (!queue.active) {
      queue.active = true;
      // After the I/O callbacks of this turn: the writes their requests ask for join this batch.
      setImmediate(() =>
        // flush handles every failure of a batch itself; should the ROLLBACK after one fail too,
        // the writes still queued fail with it rather than wait for ever behind a queue marked busy.
        flush(driver.writer, queue).catch((e) => {
          for (const w of queue.items.splice(0)) w.reject(e);
          queue.active = false;
        }),
      );
    }
  });
}

/** Commits the queued writes, a batch per transaction, until the queue is empty. */
async function flush(writer: () => Database.Database, q: WriteQueue): Promise<void> {
  for (let wait = 1; q.items.length; ) {
    let conn: Database.Database;
    try {
      conn = writer();
      statementOf(conn, "BEGIN IMMEDIATE").run();
    } catch (e) {
      // Someone else writes: retry a little later (writes asked for meanwhile join the batch),
      // except for writes past their deadline, and on any other error.
      const now = Date.now();
      const failed = isBusy(e) ? q.items.filter((w) => now > w.deadline) : q.items.slice();
      for (const w of failed) w.reject(e);
      q.items = q.items.filter((w) => !failed.includes(w));
      if (q.items.length && isBusy(e)) {
        await sleep(wait);
        wait = Math.min(wait * 2, 50);
      }
      continue;
    }
    wait = 1;
    const batch = q.items.splice(0, MAX_BATCH);
    try {
      runBatch(conn, batch, q);
    } catch (e) {
      // A savepoint statement or the COMMIT failed: nothing of the batch is committed.
      for (const w of batch) w.reject(e);
      if (conn.inTransaction) {
        try {
          statementOf(conn, "ROLLBACK").run();
        } catch {
          // Left in its transaction, the connection would refuse every later BEGIN; closing it
          // rolls the transaction back, and writer() opens a new one for the next batch.
          conn.close();
        }
      }
    }
  }
  q.active = false;
}

/**
 * Within an open transaction: runs a batch of writes, each in a savepoint, commits, then tells
 * their callers. Throws when a savepoint statement or the COMMIT fails (flush fails the batch).
 */
function runBatch(conn: Database.Database, batch: QueuedWrite[], q: WriteQueue) {
  const outcomes: { ok: boolean; value: unknown }[] = [];
  for (let i = 0; i < batch.length; i++) {
    statementOf(conn, "SAVEPOINT w").run();
    let outcome: { ok: boolean; value: unknown };
    try {
      outcome = { ok: true, value: batch[i].fn(conn) };
    } catch (e) {
      outcome = { ok: false, value: e };
    }
    if (outcome.ok) statementOf(conn, "RELEASE w").run();
    else if (conn.inTransaction) {
      statementOf(conn, "ROLLBACK TO w").run();
      statementOf(conn, "RELEASE w").run();
    } else {
      // The error ended the whole transaction (SQLite does so on some I/O errors): the writes
      // before it in this batch are lost with it; those after it go in the next one.
      for (let j = 0; j <= i; j++) batch[j].reject(outcome.value);
      q.items.unshift(...batch.slice(i + 1));
      return;
    }
    outcomes.push(outcome);
  }
  statementOf(conn, "COMMIT").run();
  for (const [i, o] of outcomes.entries()) (o.ok ? batch[i].resolve : batch[i].reject)(o.value);
}
