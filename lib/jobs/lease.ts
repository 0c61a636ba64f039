import "server-only";
import { getConfig } from "@/lib/config";
import type { Db, Prisma, Tx } from "@/lib/db/client";
import { pooledRandomBytes } from "@/lib/ids";

// Work that several workers share (orders, withdrawals, webhook deliveries) is done under a
// lease: a token and an expiry on the row (leaseToken, leaseUntil), taken by a conditional
// UPDATE, so one worker at a time works on a row, and a worker that dies loses its lease when
// it runs out. Each step that writes the row's outcome matches on the token, so a worker
// whose lease ran out (and was taken by another) changes nothing. Nothing renews a lease: a
// step must end within it (an engine call gives up at half of it, lib/orders/swap.ts).

/** A claim's identity: random, so only its holder can finish or release it. */
export const newLeaseToken = (): string => pooledRandomBytes(12).toString("hex");

/** How long a worker's claim on an order lasts (WORKER_LEASE_SECONDS); a worker's heartbeat goes stale on it too. */
export const leaseMs = () => getConfig().WORKER_LEASE_SECONDS * 1000;

/** The tables worked on under a lease: each row has leaseToken and leaseUntil. */
interface LeasedTables {
  order: { id: string; where: Prisma.OrderWhereInput; data: Prisma.OrderUncheckedUpdateManyInput };
  withdrawal: { id: string; where: Prisma.WithdrawalWhereInput; data: Prisma.WithdrawalUncheckedUpdateManyInput };
  webhookDelivery: { id: number; where: Prisma.WebhookDeliveryWhereInput; data: Prisma.WebhookDeliveryUncheckedUpdateManyInput };
}
type LeasedTable = keyof LeasedTables;

/**
 * What the lease needs of a table's Prisma model: its conditional update. The three models
 * have it, but TypeScript cannot call a method on the union of their delegates, so the one
 * cast is here; callers pass the table's own typed filters and data.
 */
interface ConditionalUpdate {
  updateMany(args: { where: object; data: object }): Promise<{ count: number }>;
}
const model = (db: Db | Tx, table: LeasedTable) => db[table] as unknown as ConditionalUpdate;

/** Nobody holds a live lease on the row: never taken, released, or run out. */
export const unleased = (now: Date) => ({ OR: [{ leaseUntil: null }, { leaseUntil: { lte: now } }] });

/**
 * Takes a lease of `ms` on those of `ids` that `where` still matches (still due) and nobody
 * holds, in one conditional UPDATE: of two workers racing for a row, the database lets one
 * UPDATE match it (PostgreSQL re-checks the condition after the row lock). Returns the lease's
 * token and how many rows it took; read them back by the token.
 */
export async function takeLease<T extends LeasedTable>(
  db: Db,
  table: T,
  opts: { ids: LeasedTables[T]["id"][]; where: LeasedTables[T]["where"]; now: Date; ms: number },
): Promise<{ token: string; taken: number }> {
  const token = newLeaseToken();
  if (!opts.ids.length) return { token, taken: 0 };
  const r = await model(db, table).updateMany({
    where: { id: { in: opts.ids }, AND: [opts.where, unleased(opts.now)] },
    data: { leaseToken: token, leaseUntil: new Date(opts.now.getTime() + opts.ms) },
  });
  return { token, taken: r.count };
}

/**
 * Ends the lease `token` on row `id`, writing `data` with it, in `db` or in the caller's
 * transaction; `where`: what else the row must still be. Matches nothing (count 0) when the
 * lease was lost meanwhile: another worker holds the row now, and its outcome stands.
 */
export function releaseLease<T extends LeasedTable>(
  db: Db | Tx,
  table: T,
  id: LeasedTables[T]["id"],
  token: string,
  data: LeasedTables[T]["data"] = {},
  where: LeasedTables[T]["where"] = {},
): Promise<{ count: number }> {
  return model(db, table).updateMany({ where: { ...where, id, leaseToken: token }, data: { ...data, leaseToken: null, leaseUntil: null } });
}
