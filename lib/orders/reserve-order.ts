import "server-only";
import { type Db, type Order, providerOf, queryOnPool } from "@/lib/db/client";
import { sqliteValue, statementOf, writeOnSqlite } from "@/lib/db/sqlite-direct";

/** What a reservation leaves at the column defaults (the schema's); TypeScript checks that with the reservation's data they make a whole Order. */
const UNSET = {
  amountReceived: null,
  payinExtraId: null,
  payinHash: null,
  payoutHash: null,
  refundState: null,
  refundHash: null,
  refundAmount: null,
  failureReason: null,
  nextActionAt: null,
  attempts: 0,
  lastError: null,
  provider: null,
  upstreamId: null,
  upstreamData: null,
  upstreamStatus: null,
  stateReason: null,
  stuckAt: null,
  depositedAt: null,
} satisfies Partial<Order>;

export type Reservation = Omit<Order, keyof typeof UNSET>;

const statements = new Map<string, string>();

/**
 * Inserts a reserved order (create-order.ts) and gives the row as stored, in one INSERT of
 * every column: through Prisma's create, compiling that one statement took a fifth of a
 * POST /exchange's CPU (README, Benchmarks). PostgreSQL: on the pool, as a named prepared
 * statement. SQLite: on the writer connection (lib/db/sqlite-direct.ts), values written as
 * Prisma's adapter writes them. A taken Idempotency-Key throws a unique violation on both
 * databases (isUniqueViolation).
 */
export async function reserveOrder(db: Db, data: Reservation): Promise<Order> {
  const row: Order = { ...UNSET, ...data };
  const columns = Object.keys(row);
  const values = Object.values(row);
  const list = columns.map((c) => `"${c}"`).join(", ");
  if (providerOf(db) === "sqlite") {
    const text = `INSERT INTO "Order" (${list}) VALUES (${columns.map(() => "?").join(", ")})`;
    await writeOnSqlite(db, (conn) => statementOf(conn, text).run(...values.map(sqliteValue)));
    return row;
  }
  const text = `INSERT INTO "Order" (${list}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")})`;
  // A named statement per column list (one in practice): pg prepares it once per connection.
  let name = statements.get(text);
  if (!name) {
    name = `reserve-order-${statements.size}`;
    statements.set(text, name);
  }
  await queryOnPool(db, name, { text, values });
  return row;
}
