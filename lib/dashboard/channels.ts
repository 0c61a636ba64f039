import "server-only";
import { effectiveMarkup, keyChannel, PAGE_CHANNEL, parseChannel, widgetChannel } from "@/lib/channels/channels";
import type { ChannelStat, ChannelStats } from "@/lib/channels/types";
import { type Db, joinSql, providerOf, sql } from "@/lib/db/client";
import { exactSum, type Parts, sqliteParts } from "@/lib/db/exact-sum";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";
import { periodOf, utcDay } from "./period";
import { pricedCurrencies } from "./prices";

/** The channel under which orders with none are counted (keyless orders have no reseller, so only very old rows). */
export const NO_CHANNEL = "none";

/** The channels the Overview's card lists one by one; the rest are summed into one row (`others`). */
export const TOP_CHANNELS = 20;

/**
 * The Overview's per-channel figures over the last `days` UTC days: orders created (all and
 * finished), the volume of the finished ones in USD at live prices (lib/prices), and the profit the
 * ledger credited in the period (order_profit_settle entries), per currency and in USD. All of it
 * is read from the channel rollup (lib/ledger/channel-daily.ts: a few rows per day, kept in the
 * transactions that open and finish orders and credit their profit), so the channels' profits
 * add up to the ledger's exactly, and ledger:check holds the rollup to its orders and entries.
 * The channels shown are the active keys and enabled widgets, revoked keys and disabled widgets
 * with figures, and the hosted page when it has any: the TOP_CHANNELS busiest of them (by orders,
 * then finished orders), chosen in SQL, each with its figures, and the rest summed in SQL into one
 * `others` row. The card costs the same with 20 channels or 10,000 (issue 48): only the shown
 * channels' keys and widgets are read, and the rollup's rows are summed in the database.
 */
export async function getChannelStats(db: Db, opts: { resellerId: string; days: number; now?: Date }): Promise<ChannelStats> {
  const { resellerId } = opts;
  const fromDay = utcDay(periodOf(opts.days, opts.now ?? new Date()).start);
  const [reseller, ranked] = await Promise.all([
    db.reseller.findUnique({ where: { id: resellerId }, select: { markupBps: true } }),
    rankChannels(db, resellerId, fromDay),
  ]);
  const top = ranked.map((r) => r.channel);
  // The ids of the shown keys and widgets, as their channels name them (keyChannel, widgetChannel).
  const idsOf = (prefix: string) => top.filter((c) => c.startsWith(prefix)).map((c) => c.slice(prefix.length));
  const [keys, widgets, rolled] = await Promise.all([
    db.apiKey.findMany({
      where: { resellerId, id: { in: idsOf(keyChannel("")) } },
      select: { id: true, name: true, prefix: true, markupBps: true, revokedAt: true },
    }),
    db.widget.findMany({
      where: { resellerId, id: { in: idsOf(widgetChannel("")) } },
      select: { id: true, name: true, markupBps: true, disabledAt: true },
    }),
    top.length ? rollupSums(db, resellerId, fromDay, top) : Promise.resolve([]),
  ]);
  // The rollup's rows from the period's first day on (open-ended, as a read of the orders was):
  // the opened orders per channel and fromCurrency, and the credited profit per channel and currency.
  const mine = rolled.filter((r) => r.bucket !== OTHERS);
  const orders = mine.filter((r) => r.orders > 0).map((r) => ({ ...r, channel: r.bucket === "" ? null : r.bucket, amount: r.volume }));
  const settled = mine
    .filter((r) => !r.profit.isZero())
    .map((r) => ({ channel: r.bucket === "" ? null : r.bucket, currency: r.currency, amount: r.profit }));
  const rest = rolled.filter((r) => r.bucket === OTHERS);
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
    [
      ...orders.filter((o) => o.finished > 0).map((o) => o.currency),
      ...settled.map((e) => e.currency),
      ...rest.filter((r) => r.finished > 0 || !r.profit.isZero()).map((r) => r.currency),
    ],
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
  const profitOf = (profit: Map<string, Dec>) => {
    let usd = new D(0);
    const list = [...profit.entries()]
      .sort(([x], [y]) => (x < y ? -1 : 1))
      .map(([currency, amount]) => {
        const u = usdValue(amount, priceOf(currency));
        if (u) usd = usd.plus(u);
        return { currency, amount: formatAmount(amount) };
      });
    return { profit: list, profitUsd: formatAmount(usd) };
  };

  const channels = [...acc.values()]
    .filter((a) => a.listed || a.stat.orders > 0 || a.profit.size > 0)
    .map((a) => ({ ...a.stat, volumeUsd: formatAmount(a.volumeUsd), ...profitOf(a.profit) }))
    .sort((x, y) => y.orders - x.orders || (x.label < y.label ? -1 : 1));

  const total = ranked[0]?.total ?? 0;
  if (total <= top.length) return { channels, others: null };
  let volumeUsd = new D(0);
  const profit = new Map<string, Dec>();
  for (const r of rest) {
    const usd = r.finished > 0 ? usdValue(r.volume, priceOf(r.currency)) : null;
    if (usd) volumeUsd = volumeUsd.plus(usd);
    if (!r.profit.isZero()) profit.set(r.currency, (profit.get(r.currency) ?? new D(0)).plus(r.profit));
  }
  return {
    channels,
    others: {
      channels: total - top.length,
      orders: rest.reduce((n, r) => n + r.orders, 0),
      finished: rest.reduce((n, r) => n + r.finished, 0),
      volumeUsd: formatAmount(volumeUsd),
      ...profitOf(profit),
    },
  };
}

/**
 * The channels the card shows, busiest first, at most TOP_CHANNELS of them, each with how many
 * channels there are in all (`total`): those with figures in the period (orders opened, or profit
 * credited) and the listed ones (active keys, enabled widgets), figures or not. One statement:
 * the period's rollup rows summed per channel, the listed channels by their indexes, ranked and
 * cut in the database.
 */
async function rankChannels(db: Db, resellerId: string, fromDay: string): Promise<{ channel: string; total: number }[]> {
  const rows = await db.$queryRaw<{ channel: string; total: number | bigint }[]>(sql`
    WITH "figs" AS (
      SELECT "channel", SUM("orders") AS "n", SUM("finished") AS "f", MAX(CASE WHEN "profit" <> '0' THEN 1 ELSE 0 END) AS "p"
      FROM "ChannelDaily"
      WHERE "resellerId" = ${resellerId} AND "day" >= ${fromDay}
      GROUP BY "channel"
    ), "listed" AS (
      SELECT 'key:' || "id" AS "channel" FROM "ApiKey" WHERE "resellerId" = ${resellerId} AND "revokedAt" IS NULL
      UNION ALL
      SELECT 'widget:' || "id" FROM "Widget" WHERE "resellerId" = ${resellerId} AND "disabledAt" IS NULL
    ), "shown" AS (
      SELECT "channel", "n", "f" FROM "figs" WHERE "n" > 0 OR "p" = 1
      UNION
      SELECT l."channel", COALESCE(x."n", 0), COALESCE(x."f", 0) FROM "listed" l LEFT JOIN "figs" x ON x."channel" = l."channel"
    )
    SELECT "channel", COUNT(*) OVER () AS "total" FROM "shown" ORDER BY "n" DESC, "f" DESC, "channel" LIMIT ${TOP_CHANNELS}`);
  return rows.map((r) => ({ channel: r.channel, total: Number(r.total) }));
}

/** The bucket of the channels past the first TOP_CHANNELS (a channel is a string, "" for none). */
const OTHERS = null;

/** Per channel ("" for none; OTHERS for the rest) and currency, over the period's days: orders opened, finished, the finished ones' fromAmount, the profit credited. */
interface Sum {
  bucket: string | null;
  currency: string;
  orders: number;
  finished: number;
  volume: Dec;
  profit: Dec;
}

/**
 * The reseller's ChannelDaily rows (lib/ledger/channel-daily.ts) from `fromDay` on, summed in SQL
 * per currency and per channel of `top`, all other channels together (OTHERS): a few rows per day,
 * by the table's key (resellerId, day, ...), and never more rows out than (top + 1) x currencies.
 */
async function rollupSums(db: Db, resellerId: string, fromDay: string, top: string[]): Promise<Sum[]> {
  const sqlite = providerOf(db) === "sqlite";
  const rows = await db.$queryRaw<
    (Parts & { bucket: string | null; currency: string; n: unknown; fin: unknown; volume?: string; profit?: string })[]
  >(sql`
    SELECT "bucket", "currency", SUM("orders") AS "n", SUM("finished") AS "fin",
      ${sqlite ? sql`${sqliteParts(sql`"volume"`, "v")}, ${sqliteParts(sql`"profit"`, "q")}` : sql`SUM("volume")::text AS "volume", SUM("profit")::text AS "profit"`}
    FROM (
      SELECT CASE WHEN "channel" IN (${joinSql(top)}) THEN "channel" END AS "bucket", "currency", "orders", "finished", "volume", "profit"
      FROM "ChannelDaily"
      WHERE "resellerId" = ${resellerId} AND "day" >= ${fromDay}
    ) AS "t"
    GROUP BY "bucket", "currency"`);
  return rows.map((r) => ({
    bucket: r.bucket,
    currency: r.currency,
    orders: Number(r.n),
    finished: Number(r.fin),
    volume: sqlite ? exactSum(r, "v") : new D(r.volume ?? 0),
    profit: sqlite ? exactSum(r, "q") : new D(r.profit ?? 0),
  }));
}
