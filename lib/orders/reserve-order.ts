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

/** The whole row of an order from its reservation's data, the other columns at their defaults. */
export function orderRow(data: Reservation): Order {
  // Not { ...UNSET, ...data }: V8 builds a spread of two objects this wide property by
  // property, about 100 µs here, a tenth of the request; Object.assign copies in bulk (6 µs).
  return Object.assign({}, UNSET, data);
}

/** The INSERT of each column list (a reservation's, a new opened order's), made once: the pg text goes with its statement name. */
const inserts = new Map<string, { sqlite: string; pg: { name: string; text: string } }>();

export function orderInsert(columns: string[]) {
  const key = columns.join(",");
  let i = inserts.get(key);
  if (!i) {
    const list = columns.map((c) => `"${c}"`).join(", ");
    i = {
      sqlite: `INSERT INTO "Order" (${list}) VALUES (${columns.map(() => "?").join(", ")})`,
      // Named: pg prepares it once per connection.
      pg: {
        name: `reserve-order-${inserts.size}`,
        text: `INSERT INTO "Order" (${list}) VALUES (${columns.map((_, n) => `$${n + 1}`).join(", ")})`,
      },
    };
    inserts.set(key, i);
  }
  return i;
}

/**
 * Inserts a reserved order (create-order.ts) and gives the row as stored, in one INSERT of
 * every column: through Prisma's create, compiling that one statement took a fifth of a
 * POST /exchange's CPU (bench/README.md). PostgreSQL: on the pool, as a named prepared
 * statement. SQLite: on the writer connection (lib/db/sqlite-direct.ts), values written as
 * Prisma's adapter writes them. A taken Idempotency-Key throws a unique violation on both
 * databases (isUniqueViolation).
 */
export async function reserveOrder(db: Db, data: Reservation): Promise<Order> {
  const row = orderRow(data);
  const insert = orderInsert(Object.keys(row));
  const values = Object.values(row);
  if (providerOf(db) === "sqlite") await writeOnSqlite(db, (conn) => statementOf(conn, insert.sqlite).run(...values.map(sqliteValue)));
  else await queryOnPool(db, insert.pg.name, { text: insert.pg.text, values });
  return row;
}
