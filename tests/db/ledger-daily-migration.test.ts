import { describe, expect, it } from "vitest";
import { createDb } from "@/lib/db/client";
import { checkLedger } from "@/lib/ledger/check";
import { D, type Dec } from "@/lib/money/decimal";
import { databaseBefore } from "../support/migration-before";

// Migration ledger_daily backfills the rollup from the entries already written, in SQL on both
// databases (on SQLite with exact integer arithmetic on the decimal strings: its SUM() of text
// goes through floats). A database at the previous migrations gets entries with up to 36
// decimal places, both signs, sums that cancel or borrow across the decimal point, either side
// of a UTC midnight; after the migration each row is the exact, canonical sum of its entries.

const DAILY = "_ledger_daily";

/** Amounts from a seeded generator: whole parts up to 10^12, 0 to 36 places, either sign. */
function amounts(count: number): string[] {
  let seed = 5;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const places = Math.floor(rnd() * 37);
    let frac = "";
    for (let p = 0; p < places; p++) frac += Math.floor(rnd() * 10);
    let a = new D(`${Math.floor(rnd() ** 6 * 1e12)}${places ? `.${frac}` : ""}`);
    if (rnd() < 0.45) a = a.neg();
    out.push(a.isZero() ? "1" : a.toFixed());
  }
  // Cancelling and borrowing pairs.
  out.push(
    "0.5",
    "-0.5",
    "-1.000000000000000000000000000000000001",
    "0.000000000000000000000000000000000001",
    "2",
    "-2.999999999999999999999999999999999999",
  );
  return out;
}

const TIMES = ["2026-11-20 23:59:59.999", "2026-11-21 00:00:00", "2026-11-21 13:30:00.5"];

describe.each(["sqlite", "postgres"] as const)("the ledger_daily migration on %s", (kind) => {
  it("backfills each rollup row with the exact, canonical sum of its entries; the check is clean", async () => {
    const before = await databaseBefore(kind, DAILY);
    const db = before.db;
    try {
      // What the previous release wrote: entries in journals balanced against the outside world
      // (the Journal row last, its trigger checks the sums), as lib/ledger did.
      const rows: string[] = [];
      const q = (x: string) => (kind === "sqlite" ? `'${x}'` : `'${x}'::numeric`);
      const at = (x: string) => (kind === "sqlite" ? `'${x}'` : `'${x}'::timestamp`);
      rows.push(
        `INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES ('r1', '0x01', CURRENT_TIMESTAMP), ('r2', '0x02', CURRENT_TIMESTAMP)`,
      );
      const expected = new Map<string, Dec>();
      amounts(600).forEach((amount, i) => {
        const r = i % 5 === 0 ? "r2" : "r1";
        const currency = ["eth", "btc", "xmr"][i % 3];
        const bucket = i % 2 ? "available" : "pending";
        const kindOf = i % 7 === 0 ? "order_profit_pending" : "order_profit_settle";
        const time = TIMES[i % TIMES.length];
        const j = `j${i}`;
        rows.push(
          `INSERT INTO "LedgerEntry" ("journalId", "resellerId", "currency", "bucket", "kind", "amount", "createdAt") VALUES ('${j}', '${r}', '${currency}', '${bucket}', '${kindOf}', ${q(amount)}, ${at(time)})`,
          `INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt") VALUES ('${j}', 'world', '${currency}', ${q(new D(amount).neg().toFixed())}, ${at(time)})`,
          `INSERT INTO "Journal" ("id", "kind", "lines", "createdAt") VALUES ('${j}', 'adjustment', 2, ${at(time)})`,
        );
        const key = [r, kindOf, bucket, time.slice(0, 10), currency].join(" ");
        expected.set(key, (expected.get(key) ?? new D(0)).plus(amount));
      });
      await before.exec(rows);
      expect(await before.upgrade()).toEqual(before.later);
      const conn = createDb(db.url);
      try {
        const got = Object.fromEntries(
          (await conn.ledgerDaily.findMany()).map((r) => [[r.resellerId, r.kind, r.bucket, r.day, r.currency].join(" "), r.amount]),
        );
        expect(got).toEqual(Object.fromEntries([...expected].map(([k, s]) => [k, s.isZero() ? "0" : s.toFixed()])));
        for (const a of Object.values(got)) expect(a).toMatch(/^-?(?:0|[1-9]\d*)(?:\.\d*[1-9])?$/);
        const rollup = (await checkLedger(conn)).violations.filter((v) => v.invariant.startsWith("each daily rollup row"));
        expect(rollup).toEqual([]);
      } finally {
        await conn.$disconnect();
      }
    } finally {
      await before.cleanup();
    }
  }, 120_000);
});
