import "server-only";
import path from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import Database from "better-sqlite3";
import pg from "pg";
import { getConfig } from "@/lib/config";
import { getLogger } from "@/lib/log";
import { maybeScope, type Scope, slot } from "@/lib/scope";
import { PrismaClient as PgClient, Prisma as PgPrisma } from "./generated/postgresql/client";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client";
import { prepareSqliteFile } from "./sqlite-file";

// Prisma cannot choose its provider at run time, so there are two generated clients from
// two identical schemas; this module picks one by the DATABASE_URL scheme. Their APIs are
// the same, so the rest of the code is typed against one of them.
export type Db = SqliteClient;
export type Tx = Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;
export type {
  ApiKey,
  AuditEvent,
  Operator,
  Order,
  OrderEvent,
  PayoutInstruction,
  PayoutRun,
  PayoutTx,
  Prisma,
  RateQuote,
  Reseller,
  ResellerMember,
  Widget,
  Withdrawal,
  WithdrawalLeg,
} from "./generated/sqlite/client";

/**
 * The current app's client (lib/scope.ts): made from DATABASE_URL on first use, or given to
 * createApp; `owned`: made here, so closed with the app (a client handed in is its maker's).
 */
interface AppDb {
  current: { url: string; db: Db; pool: pg.Pool | null; owned: boolean } | null;
}
const appDb = slot<AppDb>(
  () => ({ current: null }),
  (held) => closeHeld(held),
);

/** A client's own pool (tests, scripts); the process-wide one has DATABASE_POOL_MAX. */
const DB_POOL_MAX = 10;

export type DbProvider = "sqlite" | "postgresql";

/**
 * Money columns are NUMERIC on PostgreSQL, which Prisma hands back as its Decimal class, and
 * decimal strings on SQLite. The code sees decimal strings on both: every Decimal in a result
 * becomes its exact fixed-notation text (no float on the way).
 */
function decimalsToStrings(value: unknown): unknown {
  if (value === null || typeof value !== "object" || value instanceof Date) return value;
  if (PgPrisma.Decimal.isDecimal(value)) return (value as { toFixed(): string }).toFixed();
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = decimalsToStrings(value[i]);
    return value;
  }
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) o[k] = decimalsToStrings(o[k]);
  return o;
}

/**
 * The bare driver behind a client, for the few hot-path statements where Prisma's own CPU per
 * statement was most of the cost (bench/production.mjs: a Prisma insert ~750/s, the same
 * insert on the driver ~3,000/s; bench/README.md). PostgreSQL: the client's own pool.
 * SQLite: a second connection to the same file, for reads only (WAL: it never waits for a
 * writer, and it is not queued behind the Prisma adapter's open transactions); its reads are
 * synchronous and see every committed write, from any process.
 */
export type Driver =
  | { kind: "postgresql"; pool: pg.Pool }
  | {
      kind: "sqlite";
      reader: () => Database.Database;
      /** A third connection, for short synchronous write transactions (lib/db/sqlite-direct.ts). */
      writer: () => Database.Database;
    };

/**
 * A PostgreSQL pool with a listener for its idle connections' errors (the server restarted, a
 * failover, a proxy that closed the connection): pg emits those on the pool, and an 'error'
 * event nobody listens to is an uncaught exception. Prisma's adapter listens only while it is
 * connected; pool statements run before it connects, and after it disconnects. The broken
 * connection leaves the pool by itself; the next query opens a new one.
 */
export function newPool(config: pg.PoolConfig, name: string): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on("error", (err) => getLogger().warn({ pool: name, reason: err.message }, "PostgreSQL: an idle connection was lost"));
  return pool;
}

/**
 * Ends `companion` whenever `pool` ends, before it: for a pool that lives beside another
 * (lib/db/pg-group-commit.ts), whoever ends the first (closeDb, a client's $disconnect,
 * Prisma's adapter) ends both. pg's Pool has no 'end' event, so its end() is wrapped; the
 * promise form only (nothing here passes end() a callback).
 */
export function onPoolEnd(pool: pg.Pool, companion: () => Promise<void>) {
  const end = pool.end.bind(pool) as () => Promise<void>;
  (pool as { end: () => Promise<void> }).end = () => companion().then(end, end);
}

/**
 * A client for `url`. `pool`: a PostgreSQL pool to use (and leave open). `trace`: SQLite only,
 * called with every statement any of the client's connections runs, values filled in (for
 * tests that check query plans).
 */
export function createDb(url: string, pool?: pg.Pool, opts: { trace?: (sql: string) => void } = {}): Db {
  if (/^postgres(ql)?:\/\//.test(url)) {
    // The pool is always made here (or given), so that driverOf() can reach it; one made here ends with the client.
    const own = pool ?? newPool({ connectionString: url, max: DB_POOL_MAX }, "client");
    const driver: Driver = { kind: "postgresql", pool: own };
    const client = new PgClient({ adapter: new PrismaPg(own, { disposeExternalPool: !pool }) });
    return client.$extends({
      client: {
        $provider: "postgresql" as DbProvider,
        $driver: driver,
        async $disconnect() {
          await client.$disconnect();
          // Prisma disposes of the pool only if it connected: a client used for pool statements
          // alone (queryOnPool) would leave its connections open.
          if (!pool && !own.ended) await own.end();
        },
      },
      query: {
        async $allOperations({ args, query }) {
          return decimalsToStrings(await query(args));
        },
      },
    }) as unknown as Db;
  }
  const file = path.resolve(url.replace(/^file:/, ""));
  prepareSqliteFile(file);
  const verbose = opts.trace && ((sql?: unknown) => opts.trace?.(String(sql)));
  let reader: Database.Database | null = null;
  let writer: Database.Database | null = null;
  const driver: Driver = {
    kind: "sqlite",
    reader: () => {
      if (!reader?.open) reader = new Database(file, { fileMustExist: true, timeout: 10_000, verbose });
      return reader;
    },
    // No busy wait: it would block the event loop while this process's own Prisma transaction
    // (which needs the event loop to finish) holds the lock. sqlite-direct.ts retries instead.
    writer: () => {
      if (!writer?.open) writer = new Database(file, { fileMustExist: true, timeout: 0, verbose });
      return writer;
    },
  };
  const client = new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: file, timeout: 10_000, verbose }) });
  const extended = client.$extends({
    client: {
      $provider: "sqlite" as DbProvider,
      $driver: driver,
      async $disconnect() {
        reader?.close();
        writer?.close();
        reader = writer = null;
        await client.$disconnect();
      },
    },
  }) as unknown as Db;
  return withSnapshotRetry(extended);
}

/** Runs of an interactive transaction that lost its SQLite snapshot, before the error is the caller's. */
const SNAPSHOT_ATTEMPTS = 5;

/** A Prisma error that SQLite raised as SQLITE_BUSY (or SQLITE_BUSY_SNAPSHOT): nothing was written. */
function isSqliteBusy(e: unknown): boolean {
  const cause = (e as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null)?.meta?.driverAdapterError?.cause;
  return typeof cause?.originalCode === "string" && cause.originalCode.startsWith("SQLITE_BUSY");
}

/**
 * Prisma begins an interactive transaction DEFERRED (its adapter cannot be told otherwise), so
 * on SQLite the first read takes a snapshot and the first write fails at once with
 * SQLITE_BUSY_SNAPSHOT, which no busy wait can cure, when another connection committed in
 * between: the worker, a CLI or a second app process on the same file, often under load. SQLite's
 * own advice is to roll back and run the transaction again, so $transaction(fn) does that, with
 * a short random pause, a few times. fn must only touch the database through its tx (as it must
 * anyway: a rolled back transaction undoes nothing else). The batch form and every other error
 * pass through untouched.
 */
function withSnapshotRetry(db: Db): Db {
  const transaction = db.$transaction.bind(db) as (arg: unknown, opts?: unknown) => Promise<unknown>;
  async function $transaction(arg: unknown, opts?: unknown) {
    if (typeof arg !== "function") return transaction(arg, opts);
    for (let attempt = 1; ; attempt++) {
      try {
        return await transaction(arg, opts);
      } catch (e) {
        if (attempt >= SNAPSHOT_ATTEMPTS || !isSqliteBusy(e)) throw e;
        await new Promise((r) => setTimeout(r, Math.random() * 10 * 2 ** attempt));
      }
    }
  }
  return new Proxy(db, { get: (target, prop, receiver) => (prop === "$transaction" ? $transaction : Reflect.get(target, prop, receiver)) });
}

/** A statement made with Prisma.sql (sql`...`), as text with $n placeholders and values. */
export const sql = PgPrisma.sql;
/** An empty sql`...` fragment, for a condition left out. */
export const emptySql = PgPrisma.empty;
/** Values joined into one sql`...` fragment, each a parameter: `IN (${joinSql(ids)})`. */
export const joinSql = PgPrisma.join;

/** A Date as a DateTime column holds it, for raw statements: ISO text on SQLite (as Prisma writes it), timestamp(3) on PostgreSQL. */
export const dateParam = (db: Db | Tx, d: Date) =>
  providerOf(db) === "sqlite" ? sql`${d.toISOString().replace("Z", "+00:00")}` : sql`${d.toISOString().slice(0, 23)}::timestamp`;

// What pg reads, as Prisma's client gives it (pg alone would read a zone-less timestamp as
// local time, and NUMERIC with the trailing zeros of its stored scale, where Prisma's Decimal
// gives none): timestamp(3) columns hold UTC; money is a decimal string.
const TIMESTAMP_OID = 1114;
const NUMERIC_OID = 1700;
const utcTimestamp = (text: string) => new Date(`${text.replace(" ", "T")}Z`);
const plainDecimal = (text: string) => (text.includes(".") ? text.replace(/\.?0+$/, "") : text);
const poolTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === TIMESTAMP_OID
      ? utcTimestamp
      : oid === NUMERIC_OID
        ? plainDecimal
        : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * Runs a sql`...` statement on a PostgreSQL client's pool, as a named prepared statement (so
 * `name` must always go with the same text). Dates go as UTC ISO text: the columns are
 * timestamp(3) without a zone and hold UTC, as Prisma writes them (pg would send local time);
 * they come back as Dates of that UTC time, and NUMERIC as Prisma's Decimal prints it (poolTypes).
 */
export async function queryOnPool<T extends object>(
  db: Db | Tx,
  name: string,
  statement: { text: string; values: readonly unknown[] },
): Promise<T[]> {
  const driver = driverOf(db);
  if (driver.kind !== "postgresql") throw new Error("queryOnPool is for PostgreSQL");
  return poolQuery<T>(driver.pool, { name, text: statement.text, values: statement.values });
}

/** queryOnPool's statement on a given pool or client (lib/db/pg-group-commit.ts runs batches on one client). */
export async function poolQuery<T extends object>(
  on: pg.Pool | pg.PoolClient,
  statement: { name: string; text: string; values: readonly unknown[] },
): Promise<T[]> {
  const values = statement.values.map((v) => (v instanceof Date ? v.toISOString() : v));
  return (await on.query<T>({ name: statement.name, text: statement.text, values, types: poolTypes })).rows;
}

/** The bare driver of a client made by createDb (see Driver). */
export function driverOf(db: Db | Tx): Driver {
  const d = (db as unknown as { $driver?: Driver }).$driver;
  if (!d) throw new Error("not a client made by createDb");
  return d;
}

/** Which database a client or a transaction talks to, for the few statements whose SQL differs. */
export function providerOf(db: Db | Tx): DbProvider {
  const p = (db as unknown as { $provider?: DbProvider }).$provider;
  if (p !== "sqlite" && p !== "postgresql") throw new Error("not a client made by createDb");
  return p;
}

/** The current app's client (one per app: createApp, lib/scope.ts). */
export function getDb(): Db {
  const held = appDb();
  const { DATABASE_URL: url, DATABASE_POOL_MAX: max } = getConfig();
  if (!held.current) {
    // On PostgreSQL the pool is ours (not the adapter's), so /metrics can report its use.
    const pool = /^postgres(ql)?:\/\//.test(url) ? newPool({ connectionString: url, max }, "app") : null;
    held.current = { url, db: createDb(url, pool ?? undefined), pool, owned: true };
  }
  return held.current.db;
}

/** Gives an app a client made elsewhere (createApp({ db })); its maker closes it. */
export function provideDb(scope: Scope, db: Db): void {
  const held = appDb.of(scope);
  if (held.current) throw new Error(`${scope.name} already has a database client`);
  held.current = { url: "", db, pool: null, owned: false };
}

/** The current app's PostgreSQL pool's connections (null on SQLite, or before the first query). */
export function dbPoolStats(): { max: number; total: number; idle: number; waiting: number } | null {
  const p = maybeScope() && appDb().current?.pool;
  return p ? { max: p.options.max, total: p.totalCount, idle: p.idleCount, waiting: p.waitingCount } : null;
}

async function closeHeld(held: AppDb): Promise<void> {
  const c = held.current;
  held.current = null;
  if (!c?.owned) return;
  await c.db.$disconnect();
  await c.pool?.end();
}

/** Closes the current app's client and its pool (graceful shutdown, the end of a CLI command); the next getDb() opens another. */
export async function closeDb(): Promise<void> {
  await closeHeld(appDb());
}

/**
 * A unique index refused the write: Prisma's P2002, PostgreSQL's 23505 from a statement run on
 * the pool, or SQLite's own code from one run on the writer connection (lib/db/sqlite-direct.ts).
 */
export function isUniqueViolation(e: unknown): boolean {
  const code = typeof e === "object" && e !== null ? (e as { code?: string }).code : undefined;
  return code === "P2002" || code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
