import "server-only";
import { providerOf, type Tx } from "@/lib/db/client";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";
import { dayOf } from "./daily";

// The daily rollup of the Overview's per-channel figures (docs/ledger.md, The channel rollup):
// one ChannelDaily row per (reseller, UTC day, channel, currency) holding
// - orders: the reseller's orders opened (given a deposit address) whose createdAt falls on the
//   day, in their fromCurrency; finished: how many of those finished; volume: the exact sum of
//   the finished ones' fromAmount;
// - profit: the exact sum of the order_profit_settle entries created on the day, in their
//   currency (the orders' toCurrency), under their orders' channel.
// Changed in the same transaction as the orders and entries it sums, as LedgerDaily is
// (lib/ledger/daily.ts), after the Balance and LedgerDaily rows: the order opening (createOrder's
// general path and both one-step openers in lib/orders) and settleProfit. The Overview reads a
// few rows per day instead of every order of its period (650 ms at 100,000 orders on SQLite).

/** The channel column of an order's rows: its channel, "" for none. */
export const channelKey = (channel: string | null | undefined) => channel ?? "";

/** What a change adds to one rollup row. */
export interface ChannelDelta {
  resellerId: string;
  day: string;
  channel: string;
  currency: string;
  orders: number;
  finished: number;
  volume: Dec;
  profit: Dec;
}

/** Canonical text of a sum ("0", never "-0"). */
const text = (x: Dec) => (x.isZero() ? "0" : formatAmount(x));

const keyOf = (d: Pick<ChannelDelta, "resellerId" | "day" | "channel" | "currency">) =>
  JSON.stringify([d.resellerId, d.day, d.channel, d.currency]);

/** The row an order opened (orders + 1) adds to. */
export const openedDelta = (o: { resellerId: string; channel: string | null; createdAt: Date; fromCurrency: string }): ChannelDelta => ({
  resellerId: o.resellerId,
  day: dayOf(o.createdAt),
  channel: channelKey(o.channel),
  currency: o.fromCurrency,
  orders: 1,
  finished: 0,
  volume: new D(0),
  profit: new D(0),
});

/** Deltas merged per row, in the rows' key order (the order rows are locked in); rows left unchanged dropped. */
export function channelDeltas(rows: ChannelDelta[]): ChannelDelta[] {
  const sums = new Map<string, ChannelDelta>();
  for (const r of rows) {
    const k = keyOf(r);
    const s = sums.get(k);
    sums.set(
      k,
      s
        ? {
            ...s,
            orders: s.orders + r.orders,
            finished: s.finished + r.finished,
            volume: s.volume.plus(r.volume),
            profit: s.profit.plus(r.profit),
          }
        : { ...r },
    );
  }
  return [...sums.keys()]
    .sort()
    .map((k) => sums.get(k)!)
    .filter((d) => d.orders !== 0 || d.finished !== 0 || !d.volume.isZero() || !d.profit.isZero());
}

/**
 * Adds each delta to its rollup row, inside the caller's transaction, creating the row when
 * missing, as applyDaily does for LedgerDaily: PostgreSQL one upsert per row, integer and
 * NUMERIC arithmetic in the database (the row is locked by the update: concurrent changes to the
 * same day queue on it and none is lost); SQLite decimal.js under the write lock, the INSERT
 * taking the lock and returning the row, the UPDATE conditional on the values read. Call after
 * the Balance and LedgerDaily rows, with the deltas in key order (channelDeltas gives them so).
 */
export async function applyChannelDaily(tx: Tx, deltas: ChannelDelta[]): Promise<void> {
  const pg = providerOf(tx) === "postgresql";
  for (const d of deltas) {
    if (pg) {
      await tx.$executeRaw`INSERT INTO "ChannelDaily" ("resellerId", "day", "channel", "currency", "orders", "finished", "volume", "profit")
        VALUES (${d.resellerId}, ${d.day}, ${d.channel}, ${d.currency}, ${d.orders}, ${d.finished}, ${text(d.volume)}::numeric, ${text(d.profit)}::numeric)
        ON CONFLICT ("resellerId", "day", "channel", "currency") DO UPDATE SET
          "orders" = "ChannelDaily"."orders" + EXCLUDED."orders", "finished" = "ChannelDaily"."finished" + EXCLUDED."finished",
          "volume" = "ChannelDaily"."volume" + EXCLUDED."volume", "profit" = "ChannelDaily"."profit" + EXCLUDED."profit"`;
      continue;
    }
    const [row] = await tx.$queryRaw<{ volume: string; profit: string }[]>`
      INSERT INTO "ChannelDaily" ("resellerId", "day", "channel", "currency") VALUES (${d.resellerId}, ${d.day}, ${d.channel}, ${d.currency})
      ON CONFLICT ("resellerId", "day", "channel", "currency") DO UPDATE SET "volume" = "volume"
      RETURNING "volume", "profit"`;
    const n = await tx.$executeRaw`UPDATE "ChannelDaily" SET "orders" = "orders" + ${d.orders}, "finished" = "finished" + ${d.finished},
        "volume" = ${text(new D(row.volume).plus(d.volume))}, "profit" = ${text(new D(row.profit).plus(d.profit))}
      WHERE "resellerId" = ${d.resellerId} AND "day" = ${d.day} AND "channel" = ${d.channel} AND "currency" = ${d.currency}
        AND "volume" = ${row.volume} AND "profit" = ${row.profit}`;
    if (n !== 1) throw new Error(`channel rollup ${keyOf(d)} changed under a write lock`);
  }
}
