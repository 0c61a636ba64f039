import "server-only";
import { providerOf, sql, type Tx } from "./client";

/**
 * Locks the reseller's row until the caller's transaction ends, so that a count-then-insert of
 * the reseller's things (a cap: API keys, widgets, webhook endpoints) runs one at a time per
 * reseller, whoever runs it (the dashboard, the CLI, another process). PostgreSQL: the row's
 * FOR UPDATE lock (a second transaction waits, then counts what the first committed). SQLite: a
 * write first (a column set to itself), which takes the database's write lock before anything
 * is read. Nothing changes, and no trigger of the row (lib/keys' cache version) fires. False
 * when there is no such reseller.
 */
export async function lockReseller(tx: Tx, resellerId: string): Promise<boolean> {
  if (providerOf(tx) === "postgresql")
    return (await tx.$queryRaw<unknown[]>(sql`SELECT 1 FROM "Reseller" WHERE "id" = ${resellerId} FOR UPDATE`)).length === 1;
  return (await tx.$executeRaw(sql`UPDATE "Reseller" SET "createdAt" = "createdAt" WHERE "id" = ${resellerId}`)) === 1;
}
