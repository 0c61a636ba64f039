import { describe, expect, it } from "vitest";
import { createDb } from "@/lib/db/client";
import { checkLedger } from "@/lib/ledger/check";
import { D, type Dec } from "@/lib/money/decimal";
import { databaseBefore } from "../support/migration-before";

// Migration channel_daily backfills the channel rollup from the orders and credits already
// written, in SQL on both databases (on SQLite with the exact integer arithmetic of migration
// ledger_daily). A database at the previous migrations gets orders of three channels (none
// among them) in every state, some still unopened, with fromAmounts of up to 36 decimal places,
// and credits with up to 18, either side of a UTC midnight; after the migration each row holds
// the exact, canonical sums, and the check's channel invariant is clean.

const TARGET = "_channel_daily";
const TIMES = ["2026-11-20 23:59:59.999", "2026-11-21 00:00:00", "2026-11-21 13:30:00.5"];
const CHANNELS = [null, "page", "key:k1"];
const STATUSES = ["finished", "finished", "failed", "waiting"];

function amounts(count: number, maxPlaces: number): string[] {
  let seed = 11;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const places = Math.floor(rnd() * (maxPlaces + 1));
    let frac = "";
    for (let p = 0; p < places; p++) frac += Math.floor(rnd() * 10);
    const a = new D(`${Math.floor(rnd() ** 6 * 1e12)}${places ? `.${frac}` : ""}`);
    out.push(a.isZero() ? "0.999999999999999999999999999999999999" : a.toFixed());
  }
  return out;
}

describe.each(["sqlite", "postgres"] as const)("the channel_daily migration on %s", (kind) => {
  it("backfills each rollup row with its orders' counts and exact sums and its credits'; the check is clean", async () => {
    const before = await databaseBefore(kind, TARGET);
    const db = before.db;
    try {
      const q = (x: string) => (kind === "sqlite" ? `'${x}'` : `'${x}'::numeric`);
      const at = (x: string) => (kind === "sqlite" ? `'${x.replace(" ", "T")}+00:00'` : `'${x}'::timestamp`);
      const rows: string[] = [
        `INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES ('r1', '0x01', CURRENT_TIMESTAMP), ('r2', '0x02', CURRENT_TIMESTAMP)`,
      ];
      type Exp = { orders: number; finished: number; volume: Dec; profit: Dec };
      const expected = new Map<string, Exp>();
      const of = (key: string) => {
        const e = expected.get(key) ?? { orders: 0, finished: 0, volume: new D(0), profit: new D(0) };
        expected.set(key, e);
        return e;
      };
      const froms = amounts(300, 36);
      const credits = amounts(300, 18);
      froms.forEach((fromAmount, i) => {
        const r = i % 5 === 0 ? "r2" : i % 17 === 0 ? null : "r1";
        const channel = CHANNELS[i % 3];
        const status = STATUSES[i % 4];
        const opened = i % 13 !== 0;
        const created = TIMES[i % 3];
        const currency = ["btc", "eth"][i % 2];
        const id = `o${i}`;
        rows.push(
          `INSERT INTO "Order" ("id", "resellerId", "channel", "fromCurrency", "toCurrency", "fromAmount", "rate", "rawToAmount", "toAmount",
            "platformFeeBps", "markupBps", "profit", "payinAddress", "payoutAddress", "status", "expiresAt", "createdAt", "updatedAt")
          VALUES ('${id}', ${r ? `'${r}'` : "NULL"}, ${channel ? `'${channel}'` : "NULL"}, '${currency}', 'xmr', ${q(fromAmount)}, ${q("1")}, ${q("1")}, ${q("1")},
            0, 0, ${q("0")}, ${opened ? "'addr'" : "NULL"}, 'y', '${status}', ${at(created)}, ${at(created)}, ${at(created)})`,
        );
        if (r && opened) {
          const e = of([r, created.slice(0, 10), channel ?? "", currency].join(" "));
          e.orders++;
          if (status === "finished") {
            e.finished++;
            e.volume = e.volume.plus(fromAmount);
          }
        }
        // Credits of finished orders of a reseller, on a later time (possibly the next day); one without an order.
        if (r && status === "finished" && opened) {
          const when = TIMES[(i + 1) % 3];
          const j = `j${i}`;
          rows.push(
            `INSERT INTO "LedgerEntry" ("journalId", "resellerId", "orderId", "currency", "bucket", "kind", "amount", "createdAt") VALUES ('${j}', '${r}', '${id}', 'xmr', 'available', 'order_profit_settle', ${q(credits[i])}, ${at(when)})`,
            `INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt") VALUES ('${j}', 'world', 'xmr', ${q(new D(credits[i]).neg().toFixed())}, ${at(when)})`,
            `INSERT INTO "Journal" ("id", "kind", "lines", "createdAt") VALUES ('${j}', 'adjustment', 2, ${at(when)})`,
          );
          const e = of([r, when.slice(0, 10), channel ?? "", "xmr"].join(" "));
          e.profit = e.profit.plus(credits[i]);
        }
      });
      await before.exec(rows);
      expect(await before.upgrade()).toEqual(before.later);
      const conn = createDb(db.url);
      try {
        const got = Object.fromEntries(
          (await conn.channelDaily.findMany()).map((r) => [
            [r.resellerId, r.day, r.channel, r.currency].join(" "),
            [r.orders, r.finished, r.volume, r.profit],
          ]),
        );
        const text = (x: Dec) => (x.isZero() ? "0" : x.toFixed());
        expect(got).toEqual(Object.fromEntries([...expected].map(([k, e]) => [k, [e.orders, e.finished, text(e.volume), text(e.profit)]])));
        const rollup = (await checkLedger(conn)).violations.filter((v) => v.invariant.startsWith("each channel rollup"));
        expect(rollup).toEqual([]);
      } finally {
        await conn.$disconnect();
      }
    } finally {
      await before.cleanup();
    }
  }, 120_000);
});
