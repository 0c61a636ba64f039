import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { openOrderPrisma } from "@/lib/orders/open-order-prisma";
import { openedRow, openingPlan } from "@/lib/orders/opening";
import { FIXTURE_T0, fixtureReservation } from "./order-fixture";
import { type ReusableDb, reusableDatabase } from "./reusable-db";
import { type TempDb, tempDatabase } from "./sqlite-db";

// The reset must leave what a fresh clone of the template has: every table's rows (the
// migrations' own too) and every sequence, so that ids made after it are a fresh clone's ids.

const T0 = FIXTURE_T0;

/** Writes rows in many tables: a reseller, an opened order (its journal, balance, rollups), a webhook message. */
async function write(db: Db) {
  await db.reseller.create({
    data: { id: "r-reset", walletAddress: `0x${"cd".repeat(20)}`, markupBps: 100, createdAt: T0, updatedAt: T0 },
  });
  const order = fixtureReservation({ id: "0123456789abcdef0000reset", resellerId: "r-reset" });
  const opened = openedRow(order, { payinAddress: "bc1qreset", payinExtraId: null, firstCheckAfterMs: 15_000 }, T0);
  expect(await openOrderPrisma(db, openingPlan(opened, null, T0))).not.toBeNull();
  await db.webhookEndpoint.create({
    data: {
      id: "we-reset",
      resellerId: "r-reset",
      url: "https://example.com/h",
      events: "[]",
      secret: "whsec_x",
      createdAt: T0,
      updatedAt: T0,
    },
  });
}

/** Every table's rows, sorted, and the sequences' state. */
async function state(t: TempDb, kind: "sqlite" | "postgres"): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  if (kind === "sqlite") {
    const c = new Database(t.url.replace(/^file:/, ""), { readonly: true });
    try {
      const tables = c.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name <> '_prisma_migrations' ORDER BY 1`).all() as {
        name: string;
      }[];
      for (const { name } of tables)
        out[name] = (c.prepare(`SELECT * FROM "${name}"`).all() as object[]).map((r) => JSON.stringify(r)).sort();
      out["<triggers>"] = (c.prepare(`SELECT sql FROM sqlite_master WHERE type = 'trigger'`).all() as { sql: string }[])
        .map((r) => r.sql)
        .sort();
    } finally {
      c.close();
    }
    return out;
  }
  const tables = await t.db.$queryRawUnsafe<{ name: string }[]>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations' ORDER BY 1`,
  );
  for (const { name } of tables)
    out[name] = (await t.db.$queryRawUnsafe<{ j: string }[]>(`SELECT row_to_json(t)::text AS j FROM "${name}" t`)).map((r) => r.j).sort();
  out["<sequences>"] = (
    await t.db.$queryRawUnsafe<{ j: string }[]>(
      `SELECT row_to_json(s)::text AS j FROM (SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = current_schema()) s`,
    )
  )
    .map((r) => r.j)
    .sort();
  return out;
}

describe.each(["sqlite", "postgres"] as const)("a reusable database on %s", (kind) => {
  let fresh: TempDb;
  let t: ReusableDb;
  beforeAll(async () => {
    fresh = await tempDatabase(kind);
    t = await reusableDatabase(kind);
  });
  afterAll(async () => {
    await fresh?.cleanup();
    await t?.cleanup();
  });

  it("reset() leaves a fresh clone's rows, sequences and triggers, and the same ids come again after it", async () => {
    const clean = await state(fresh, kind);
    expect(await state(t, kind)).toEqual(clean);
    await write(t.db);
    const written = await state(t, kind);
    expect(written).not.toEqual(clean);
    await t.reset();
    expect(await state(t, kind)).toEqual(clean);
    await write(t.db);
    const again = await state(t, kind);
    // Journals' ids are random; everything else (the autoincrement ids too) is written again alike.
    const masked = (s: Record<string, string[]>) =>
      JSON.stringify(s).replace(/[1-9A-HJ-NP-Za-km-z]{20,23}(?=\\")/g, (id) => (id.includes("reset") ? id : "<id>"));
    expect(masked(again)).toEqual(masked(written));
    // The triggers are back: the ledger's lines cannot be deleted.
    await expect(t.db.$executeRawUnsafe(`DELETE FROM "JournalLine"`)).rejects.toThrow();
  });
});
