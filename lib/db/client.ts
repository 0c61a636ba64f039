import "server-only";
import path from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { getConfig } from "@/lib/config";
import { PrismaClient as PgClient, Prisma as PgPrisma } from "./generated/postgresql/client";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client";
import { prepareSqliteFile } from "./sqlite-file";

// Prisma cannot choose its provider at run time, so there are two generated clients from
// two identical schemas; this module picks one by the DATABASE_URL scheme. Their APIs are
// the same, so the rest of the code is typed against one of them.
export type Db = SqliteClient;
export type Tx = Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;
export type { ApiKey, Order, OrderEvent, RateQuote, Reseller } from "./generated/sqlite/client";

let shared: { url: string; db: Db; pool: pg.Pool | null } | null = null;

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

export function createDb(url: string, pool?: pg.Pool): Db {
  if (/^postgres(ql)?:\/\//.test(url)) {
    return new PgClient({ adapter: new PrismaPg(pool ?? { connectionString: url, max: 10 }) }).$extends({
      client: { $provider: "postgresql" as DbProvider },
      query: {
        async $allOperations({ args, query }) {
          return decimalsToStrings(await query(args));
        },
      },
    }) as unknown as Db;
  }
  const file = path.resolve(url.replace(/^file:/, ""));
  prepareSqliteFile(file);
  return new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: file, timeout: 10_000 }) }).$extends({
    client: { $provider: "sqlite" as DbProvider },
  }) as unknown as Db;
}

/** Which database a client or a transaction talks to, for the few statements whose SQL differs. */
export function providerOf(db: Db | Tx): DbProvider {
  const p = (db as unknown as { $provider?: DbProvider }).$provider;
  if (p !== "sqlite" && p !== "postgresql") throw new Error("not a client made by createDb");
  return p;
}

/** The process-wide client (this module is loaded once per process: see README, Architecture). */
export function getDb(): Db {
  const url = getConfig().DATABASE_URL;
  if (!shared || shared.url !== url) {
    // On PostgreSQL the pool is ours (not the adapter's), so /metrics can report its use.
    const pool = /^postgres(ql)?:\/\//.test(url) ? new pg.Pool({ connectionString: url, max: DB_POOL_MAX }) : null;
    shared = { url, db: createDb(url, pool ?? undefined), pool };
  }
  return shared.db;
}

const DB_POOL_MAX = 10;

/** The process-wide PostgreSQL pool's connections (null on SQLite, or before the first query). */
export function dbPoolStats(): { max: number; total: number; idle: number; waiting: number } | null {
  const p = shared?.pool;
  return p ? { max: DB_POOL_MAX, total: p.totalCount, idle: p.idleCount, waiting: p.waitingCount } : null;
}

/** Closes the process-wide client and its pool (graceful shutdown). */
export async function closeDb(): Promise<void> {
  if (!shared) return;
  const { db, pool } = shared;
  shared = null;
  await db.$disconnect();
  await pool?.end();
}

export function isUniqueViolation(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { code?: string }).code === "P2002";
}
