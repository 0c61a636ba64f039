import "server-only";
import type pg from "pg";
import { type Db, driverOf, poolQuery } from "./client";

// Group commit on PostgreSQL, per lane: while a lane's statement (or batch) is in flight, the
// statements asked for on the same lane wait, and then run together in one transaction, one
// commit for all of them. It is for single statements that update the same few hot rows
// (a reseller's Balance and rollup rows, lib/orders/open-order-postgres.ts): each such
// statement holds those rows' locks until its commit has flushed the WAL, so one after the
// other they run at most one commit per WAL flush, whatever the number of connections. In
// a batch they pay one flush for all.
//
// - A statement alone (nothing in flight on its lane) runs at once, on its own, as a plain
//   pool query: group commit adds nothing where nothing waits.
// - A lane must name every hot row its statements lock, so that all the statements of a
//   batch lock the same rows, in the same order as one statement alone does: a batch can then
//   wait for another transaction but never deadlock with one where a statement alone would not.
// - A batch that fails before its COMMIT is rolled back, and each of its statements runs
//   again on its own, so that an error is its own statement's and no other's. A failed COMMIT
//   fails the batch's every statement (whether it committed is then unknown, as for one
//   statement alone).
// SQLite has its own group commit (lib/db/sqlite-direct.ts, writeOnSqlite): one writer, every write.

export interface Statement {
  name: string;
  text: string;
  values: readonly unknown[];
}

interface Queued {
  statement: Statement;
  resolve: (rows: object[]) => void;
  reject: (e: unknown) => void;
}

/** Most statements one transaction carries; the rest wait for the next one. */
const MAX_BATCH = 64;

/** Per pool: each busy lane's waiting statements (an empty array: one is in flight, none waits). */
const lanes = new WeakMap<pg.Pool, Map<string, Queued[]>>();

/** What the group commit did, for tests and benchmarks. */
export const groupCommitStats = { alone: 0, batches: 0, batched: 0, retriedAlone: 0 };

/** Runs `statement` on the pool of `db`, in the same transaction as the statements of its lane that wait with it. */
export function queryInLane<T extends object>(db: Db, lane: string, statement: Statement): Promise<T[]> {
  const driver = driverOf(db);
  if (driver.kind !== "postgresql") return Promise.reject(new Error("queryInLane is for PostgreSQL"));
  const pool = driver.pool;
  let busy = lanes.get(pool);
  if (!busy) {
    busy = new Map();
    lanes.set(pool, busy);
  }
  const waiting = busy.get(lane);
  if (waiting) return new Promise<T[]>((resolve, reject) => waiting.push({ statement, resolve: resolve as Queued["resolve"], reject }));
  busy.set(lane, []);
  groupCommitStats.alone++;
  const alone = poolQuery<T>(pool, statement);
  const next = () => drain(pool, busy, lane);
  alone.then(next, next);
  return alone;
}

/** After a lane's statement or batch: the next batch of what waited, until nothing waits. */
function drain(pool: pg.Pool, busy: Map<string, Queued[]>, lane: string) {
  const waiting = busy.get(lane);
  if (!waiting?.length) {
    busy.delete(lane);
    return;
  }
  const batch = waiting.splice(0, MAX_BATCH);
  const next = () => drain(pool, busy, lane);
  runBatch(pool, batch).then(next, next);
}

async function runBatch(pool: pg.Pool, batch: Queued[]): Promise<void> {
  if (batch.length === 1) {
    groupCommitStats.alone++;
    return settle(batch[0], poolQuery(pool, batch[0].statement));
  }
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    for (const q of batch) q.reject(e);
    return;
  }
  const results: object[][] = [];
  try {
    await client.query("BEGIN");
    for (const q of batch) results.push(await poolQuery(client, q.statement));
  } catch {
    // Before the COMMIT: nothing of the batch is written. Each statement runs again on its own.
    // A connection that cannot even roll back is dropped from the pool (release with an error).
    const broken = await client.query("ROLLBACK").then(
      () => undefined,
      (e: Error) => e,
    );
    client.release(broken);
    groupCommitStats.retriedAlone += batch.length;
    await Promise.all(batch.map((q) => settle(q, poolQuery(pool, q.statement))));
    return;
  }
  try {
    await client.query("COMMIT");
  } catch (e) {
    client.release(e as Error);
    for (const q of batch) q.reject(e);
    return;
  }
  client.release();
  groupCommitStats.batches++;
  groupCommitStats.batched += batch.length;
  for (const [i, q] of batch.entries()) q.resolve(results[i]);
}

function settle(q: Queued, result: Promise<object[]>): Promise<void> {
  return result.then(q.resolve, q.reject);
}
