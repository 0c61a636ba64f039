import "server-only";
import pg from "pg";
import { type Db, driverOf, newPool, onPoolEnd, poolQuery } from "./client";

// Group commit on PostgreSQL, per lane: while a lane's statement (or batch) is in flight, the
// statements asked for on the same lane wait, and then run together in one transaction, one
// commit for all of them. It is for single statements that update the same few hot rows (a
// reseller's Balance and rollup rows, lib/orders/open-order-postgres.ts): each such statement
// holds those rows' locks until its commit has flushed the WAL, so one after the other they
// run at most one commit per WAL flush, whatever the number of connections. In a batch they
// pay one flush for all. A batch goes at once on a pipelined connection (pg's `pipeline`):
// BEGIN, the statements and COMMIT in one round trip, so that it holds the rows about as long
// as one statement alone. Sent one by one (a round trip each, the rows held throughout), one
// reseller's orders opened 1,931 to 2,120 a second at a p99 of 40 to 54 ms; pipelined, 3,376
// at 29 ms (bench/README.md).
//
// - A statement alone (nothing in flight on its lane) runs at once, on its own, as a plain
//   pool query: group commit adds nothing where nothing waits.
// - A lane must name every hot row its statements lock, so that all the statements of a
//   batch lock the same rows, in the same order as one statement alone does: a batch can then
//   wait for another transaction but never deadlock with one where a statement alone would not.
// - A batch with a statement the server refuses is not written (the statements after it fail
//   and its COMMIT ends it as a ROLLBACK), and each of its statements runs again on its own, so
//   that an error is its own statement's and no other's. A lost connection or a failed COMMIT
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

/** What the group commit did in this process (/metrics: db_group_commit_statements_total; tests). */
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

/** Connections that batches use, per pool: pipelined, so that a batch is one round trip, not one per statement. */
const pipelined = new WeakMap<pg.Pool, pg.Pool>();
/** At most this many batches at once per process; more wait for a connection (and grow meanwhile). */
const PIPELINED_MAX = 2;

function pipelinedPoolOf(pool: pg.Pool): pg.Pool {
  const made = pipelined.get(pool);
  if (made) return made;
  // Idle connections do not keep a process alive (a CLI command exits when done); the pool
  // that made them ends them with its own (lib/db/client.ts, onPoolEnd).
  const p = newPool({ ...pool.options, max: PIPELINED_MAX, pipeline: true, allowExitOnIdle: true }, "group-commit");
  pipelined.set(pool, p);
  onPoolEnd(pool, () => p.end());
  return p;
}

async function runBatch(pool: pg.Pool, batch: Queued[]): Promise<void> {
  if (batch.length === 1) {
    groupCommitStats.alone++;
    return settle(batch[0], poolQuery(pool, batch[0].statement));
  }
  let client: pg.PoolClient;
  try {
    client = await pipelinedPoolOf(pool).connect();
  } catch (e) {
    for (const q of batch) q.reject(e);
    return;
  }
  // All sent at once: BEGIN, the statements, COMMIT. The server runs them in order; after a
  // statement it refuses, the rest fail and the COMMIT ends the transaction as a ROLLBACK.
  const begin = client.query("BEGIN");
  const statements = batch.map((q) => poolQuery(client, q.statement));
  const commit = client.query("COMMIT");
  const [began, committed, ...ran] = await Promise.allSettled([begin, commit, ...statements]);
  const refused = ran.find((r) => r.status === "rejected");
  if (began.status === "rejected") {
    // No transaction (BEGIN is refused only with its connection): each statement stands alone.
    client.release(began.reason as Error);
    for (const [i, r] of ran.entries()) {
      if (r.status === "fulfilled") batch[i].resolve(r.value);
      else batch[i].reject(r.reason);
    }
    return;
  }
  if (!refused && committed.status === "fulfilled" && committed.value.command === "COMMIT") {
    client.release();
    groupCommitStats.batches++;
    groupCommitStats.batched += batch.length;
    for (const [i, r] of ran.entries()) batch[i].resolve((r as PromiseFulfilledResult<object[]>).value);
    return;
  }
  if (refused && refused.reason instanceof pg.DatabaseError && committed.status === "fulfilled") {
    // The server refused a statement: nothing of the batch is written. Each runs again on its
    // own, in the order they came (of two that conflict, the first asked wins, as in a batch).
    client.release();
    groupCommitStats.retriedAlone += batch.length;
    for (const q of batch) await settle(q, poolQuery(pool, q.statement));
    return;
  }
  // The connection failed, or the COMMIT did: whether the batch committed is unknown.
  const error = (committed.status === "rejected" ? committed.reason : refused?.reason) ?? new Error("group commit: no COMMIT");
  client.release(error as Error);
  for (const q of batch) q.reject(error);
}

function settle(q: Queued, result: Promise<object[]>): Promise<void> {
  return result.then(q.resolve, q.reject);
}
