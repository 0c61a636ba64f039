import "server-only";
import { effectiveMarkup, keyChannel, PAGE_CHANNEL, parseChannel, widgetChannel } from "@/lib/channels/channels";
import type { ChannelStat } from "@/lib/channels/types";
import { type Db, providerOf, sql } from "@/lib/db/client";
import { exactSum, type Parts, sqliteParts } from "@/lib/db/exact-sum";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";
import { periodOf, utcDay } from "./period";
import { pricedCurrencies } from "./prices";

/** The channel under which orders with none are counted (keyless orders have no reseller, so only very old rows). */
export const NO_CHANNEL = "none";

/**
 * The Overview's per-channel figures over the last `days` UTC days: orders created (all and
 * finished), the volume of the finished ones in USD at live prices (lib/prices), and the profit the
 * ledger credited in the period (order_profit_settle entries), per currency and in USD. All of it
 * is read from the channel rollup (lib/ledger/channel-daily.ts: a few rows per day, kept in the
 * transactions that open and finish orders and credit their profit), so the channels' profits
 * add up to the ledger's exactly, and ledger:check holds the rollup to its orders and entries. Every key and widget is listed (revoked keys and
 * disabled widgets only when they have figures), and the hosted page when it has any.
 */
export async function getChannelStats(db: Db, opts: { resellerId: string; days: number; now?: Date }): Promise<ChannelStat[]> {
  const { resellerId } = opts;
  const period = periodOf(opts.days, opts.now ?? new Date());
  const [reseller, keys, widgets, rolled] = await Promise.all([
    db.reseller.findUnique({ where: { id: resellerId }, select: { markupBps: true } }),
    db.apiKey.findMany({ where: { resellerId }, select: { id: true, name: true, prefix: true, markupBps: true, revokedAt: true } }),
    db.widget.findMany({ where: { resellerId }, select: { id: true, name: true, markupBps: true, disabledAt: true } }),
    rollupSums(db, resellerId, utcDay(period.start)),
  ]);
  // The rollup's rows from the period's first day on (open-ended, as a read of the orders was):
  // the opened orders per channel and fromCurrency, and the credited profit per channel and currency.
  const orders = rolled.filter((r) => r.orders > 0).map((r) => ({ ...r, amount: r.volume }));
  const settled = rolled.filter((r) => !r.profit.isZero()).map((r) => ({ channel: r.channel, currency: r.currency, amount: r.profit }));
  const base = reseller?.markupBps ?? 0;

  interface Acc {
    stat: Omit<ChannelStat, "volumeUsd" | "profit" | "profitUsd">;
    volumeUsd: Dec;
    profit: Map<string, Dec>;
    listed: boolean;
  }
  const acc = new Map<string, Acc>();
  const add = (channel: string, stat: Acc["stat"], listed: boolean) =>
    acc.set(channel, { stat, volumeUsd: new D(0), profit: new Map(), listed });
  for (const k of keys)
    add(
      keyChannel(k.id),
      {
        channel: keyChannel(k.id),
        type: "key",
        label: `${k.name} (${k.prefix}…)`,
        markupBps: effectiveMarkup(k.markupBps, base),
        orders: 0,
        finished: 0,
      },
      !k.revokedAt,
    );
  for (const w of widgets)
    add(
      widgetChannel(w.id),
      {
        channel: widgetChannel(w.id),
        type: "widget",
        label: w.name,
        markupBps: effectiveMarkup(w.markupBps, base),
        orders: 0,
        finished: 0,
      },
      !w.disabledAt,
    );
  const entryOf = (channel: string | null): Acc => {
    const c = channel && parseChannel(channel) ? channel : NO_CHANNEL;
    let a = acc.get(c);
    if (!a) {
      const page = c === PAGE_CHANNEL;
      add(
        c,
        {
          channel: c,
          type: page ? "page" : "key",
          label: page ? "Hosted page" : c === NO_CHANNEL ? "No channel" : c,
          markupBps: base,
          orders: 0,
          finished: 0,
        },
        false,
      );
      a = acc.get(c) as Acc;
    }
    return a;
  };

  // One live USD price per currency involved (the Overview's figures say where and when they came from).
  const priced = await pricedCurrencies(
    [...orders.filter((o) => o.finished > 0).map((o) => o.currency), ...settled.map((e) => e.currency)],
    resellerId,
  );
  const usdPrice = new Map(priced.map((c) => [c.ticker, c.priceUsd ?? null]));
  const priceOf = (ticker: string) => usdPrice.get(ticker) ?? null;
  for (const o of orders) {
    const a = entryOf(o.channel);
    a.stat.orders += o.orders;
    a.stat.finished += o.finished;
    const usd = o.finished > 0 ? usdValue(o.amount, priceOf(o.currency)) : null;
    if (usd) a.volumeUsd = a.volumeUsd.plus(usd);
  }
  for (const e of settled) {
    const a = entryOf(e.channel);
    a.profit.set(e.currency, (a.profit.get(e.currency) ?? new D(0)).plus(e.amount));
  }

  return [...acc.values()]
    .filter((a) => a.listed || a.stat.orders > 0 || a.profit.size > 0)
    .map((a) => {
      let profitUsd = new D(0);
      const profit = [...a.profit.entries()]
        .sort(([x], [y]) => (x < y ? -1 : 1))
        .map(([currency, amount]) => {
          const usd = usdValue(amount, priceOf(currency));
          if (usd) profitUsd = profitUsd.plus(usd);
          return { currency, amount: formatAmount(amount) };
        });
      return { ...a.stat, volumeUsd: formatAmount(a.volumeUsd), profit, profitUsd: formatAmount(profitUsd) };
    })
    .sort((x, y) => y.orders - x.orders || (x.label < y.label ? -1 : 1));
}

/** Per channel (null: none) and currency, over the period's days: orders opened, finished, the finished ones' fromAmount, the profit credited. */
interface Sum {
  channel: string | null;
  currency: string;
  orders: number;
  finished: number;
  volume: Dec;
  profit: Dec;
}

/**
 * The reseller's ChannelDaily rows (lib/ledger/channel-daily.ts) from `fromDay` on, summed per
 * channel and currency in SQL: a few rows per day, by the table's key (resellerId, day, ...).
 */
async function rollupSums(db: Db, resellerId: string, fromDay: string): Promise<Sum[]> {
  const sqlite = providerOf(db) === "sqlite";
  const rows = await db.$queryRaw<
    (Parts & { channel: string; currency: string; n: unknown; fin: unknown; volume?: string; profit?: string })[]
  >(sql`
    SELECT "channel", "currency", SUM("orders") AS "n", SUM("finished") AS "fin",
      ${sqlite ? sql`${sqliteParts(sql`"volume"`, "v")}, ${sqliteParts(sql`"profit"`, "q")}` : sql`SUM("volume")::text AS "volume", SUM("profit")::text AS "profit"`}
    FROM "ChannelDaily"
    WHERE "resellerId" = ${resellerId} AND "day" >= ${fromDay}
    GROUP BY "channel", "currency"`);
  return rows.map((r) => ({
    channel: r.channel === "" ? null : r.channel,
    currency: r.currency,
    orders: Number(r.n),
    finished: Number(r.fin),
    volume: sqlite ? exactSum(r, "v") : new D(r.volume ?? 0),
    profit: sqlite ? exactSum(r, "q") : new D(r.profit ?? 0),
  }));
}
