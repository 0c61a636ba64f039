import "server-only";
import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { getConfig } from "@/lib/config";
import { PrismaClient as PgClient } from "./generated/postgresql/client";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client";

// Prisma cannot choose its provider at run time, so there are two generated clients from
// two identical schemas; this module picks one by the DATABASE_URL scheme. Their APIs are
// the same, so the rest of the code is typed against one of them.
export type Db = SqliteClient;
export type Tx = Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;
export type { ApiKey, Order, OrderEvent, Reseller } from "./generated/sqlite/client";

let shared: { url: string; db: Db } | null = null;

export function createDb(url: string): Db {
  if (/^postgres(ql)?:\/\//.test(url)) {
    return new PgClient({ adapter: new PrismaPg({ connectionString: url, max: 10 }) }) as unknown as Db;
  }
  const file = path.resolve(url.replace(/^file:/, ""));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: file, timeout: 10_000 }) });
}

/** The process-wide client (this module is loaded once per process: see README, Architecture). */
export function getDb(): Db {
  const url = getConfig().DATABASE_URL;
  if (!shared || shared.url !== url) shared = { url, db: createDb(url) };
  return shared.db;
}

export function isUniqueViolation(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { code?: string }).code === "P2002";
}
