// getChannelStats as it was before the channel rollup (lib/dashboard/channels.ts at afc86bf): the
// figures summed from the orders and entries themselves, the reference the rollup must equal.
import { effectiveMarkup, keyChannel, PAGE_CHANNEL, parseChannel, widgetChannel } from "@/lib/channels/channels";
import type { ChannelStat } from "@/lib/channels/types";
import { DAY_MS, periodOf } from "@/lib/dashboard/period";
import { pricedCurrencies } from "@/lib/dashboard/prices";
import { type Db, providerOf, sql } from "@/lib/db/client";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";

const NO_CHANNEL = "none";

/**
 * The Overview's per-channel figures over the last `days` UTC days: orders created (all and
 * finished), the volume of the finished ones in USD at live prices (lib/prices), and the profit the
 * ledger credited in the period (order_profit_settle entries), per currency and in USD. The
 * profit is read from the ledger itself, grouped by its orders' channels, so the channels'
 * profits add up to the ledger's exactly. Every key and widget is listed (revoked keys and
 * disabled widgets only when they have figures), and the hosted page when it has any.
 */
export async function legacyChannelStats(db: Db, opts: { resellerId: string; days: number; now?: Date }): Promise<ChannelStat[]> {
  const { resellerId } = opts;
  const period = periodOf(opts.days, opts.now ?? new Date());
  const [reseller, keys, widgets, orders, settled] = await Promise.all([
    db.reseller.findUnique({ where: { id: resellerId }, select: { markupBps: true } }),
    db.apiKey.findMany({ where: { resellerId }, select: { id: true, name: true, prefix: true, markupBps: true, revokedAt: true } }),
    db.widget.findMany({ where: { resellerId }, select: { id: true, name: true, markupBps: true, disabledAt: true } }),
    sumsInSlices(period, (from, to) => orderSums(db, resellerId, from, to)),
    sumsInSlices(period, (from, to) => settledSums(db, resellerId, from, to)),
  ]);
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

/** Per channel and currency: orders, finished ones, and an exact sum (of the finished orders' fromAmount, or of settled profit). */
interface Sum {
  channel: string | null;
  currency: string;
  orders: number;
  finished: number;
  amount: Dec;
}

/**
 * The period's sums, added up over slices: a week per statement (as the code before the rollup
 * read SQLite, to give the event loop a turn between them), the last slice open-ended.
 */
async function sumsInSlices(
  period: { start: Date; todayStart: Date },
  read: (from: Date, to: Date | null) => Promise<Sum[]>,
): Promise<Sum[]> {
  const parts: Sum[] = [];
  const end = period.todayStart.getTime() + DAY_MS;
  for (let at = period.start.getTime(); at < end; at += 7 * DAY_MS)
    parts.push(...(await read(new Date(at), at + 7 * DAY_MS >= end ? null : new Date(at + 7 * DAY_MS))));
  const out = new Map<string, Sum>();
  for (const p of parts) {
    const key = `${p.channel} ${p.currency}`;
    const o = out.get(key);
    if (o) {
      o.orders += p.orders;
      o.finished += p.finished;
      o.amount = o.amount.plus(p.amount);
    } else out.set(key, { ...p });
  }
  return [...out.values()];
}

/**
 * An exact sum of a column of decimal text on SQLite, whose own SUM goes through floats: the
 * whole parts and four groups of nine decimal places summed as integers, to be put together by
 * `exactSum` (as the Journal_balanced trigger sums a journal's lines, migration journals).
 */
const sqliteParts = (col: ReturnType<typeof sql>) => {
  const dot = sql`instr(${col}, '.')`;
  const frac = sql`(CASE WHEN ${dot} > 0 THEN substr(${col}, ${dot} + 1) ELSE '' END || '000000000000000000000000000000000000')`;
  const sign = sql`(CASE WHEN substr(${col}, 1, 1) = '-' THEN -1 ELSE 1 END)`;
  const part = (n: number) => sql`SUM(${sign} * CAST(substr(${frac}, ${n * 9 + 1}, 9) AS INTEGER))`;
  return sql`SUM(CAST(CASE WHEN ${dot} > 0 THEN substr(${col}, 1, ${dot} - 1) ELSE ${col} END AS INTEGER)) AS "w",
    ${part(0)} AS "p0", ${part(1)} AS "p1", ${part(2)} AS "p2", ${part(3)} AS "p3"`;
};

type Parts = { w: unknown; p0: unknown; p1: unknown; p2: unknown; p3: unknown };
const exactSum = (r: Parts): Dec =>
  [r.p0, r.p1, r.p2, r.p3].reduce<Dec>(
    (acc, p, i) => acc.plus(new D(String(p ?? 0)).times(new D(10).pow(-9 * (i + 1)))),
    new D(String(r.w ?? 0)),
  );

/** Dates as the app stores them: ISO text with "+00:00" on SQLite, a timestamp (UTC) on PostgreSQL. */
const at = (db: Db, d: Date) =>
  providerOf(db) === "sqlite" ? sql`${d.toISOString().replace("Z", "+00:00")}` : sql`${d.toISOString().slice(0, 23)}::timestamp`;
const before = (db: Db, col: ReturnType<typeof sql>, to: Date | null) => (to ? sql`AND ${col} < ${at(db, to)}` : sql``);

/** The orders created in [from, to) per channel and currency: how many, how many finished, and the finished ones' fromAmount. */
async function orderSums(db: Db, resellerId: string, from: Date, to: Date | null): Promise<Sum[]> {
  const finishedAmount = sql`CASE WHEN "status" = 'finished' THEN "fromAmount" ELSE '0' END`;
  const rows = await db.$queryRaw<(Parts & { channel: string | null; currency: string; n: unknown; fin: unknown; total?: string })[]>(sql`
    SELECT "channel", "fromCurrency" AS "currency", COUNT(*) AS "n", SUM(CASE WHEN "status" = 'finished' THEN 1 ELSE 0 END) AS "fin",
      ${providerOf(db) === "sqlite" ? sqliteParts(finishedAmount) : sql`(SUM("fromAmount") FILTER (WHERE "status" = 'finished'))::text AS "total"`}
    FROM "Order"
    WHERE "resellerId" = ${resellerId} AND "createdAt" >= ${at(db, from)} ${before(db, sql`"createdAt"`, to)} AND "payinAddress" IS NOT NULL
    GROUP BY "channel", "fromCurrency"`);
  return rows.map((r) => ({
    channel: r.channel,
    currency: r.currency,
    orders: Number(r.n),
    finished: Number(r.fin),
    amount: providerOf(db) === "sqlite" ? exactSum(r) : new D(r.total ?? 0),
  }));
}

/** The profit credited in [from, to) (order_profit_settle entries) per channel of their orders and currency. */
async function settledSums(db: Db, resellerId: string, from: Date, to: Date | null): Promise<Sum[]> {
  const rows = await db.$queryRaw<(Parts & { channel: string | null; currency: string; total?: string })[]>(sql`
    SELECT o."channel", e."currency",
      ${providerOf(db) === "sqlite" ? sqliteParts(sql`e."amount"`) : sql`SUM(e."amount")::text AS "total"`}
    FROM "LedgerEntry" e LEFT JOIN "Order" o ON o."id" = e."orderId"
    WHERE e."resellerId" = ${resellerId} AND e."kind" = 'order_profit_settle' AND e."createdAt" >= ${at(db, from)} ${before(db, sql`e."createdAt"`, to)}
    GROUP BY o."channel", e."currency"`);
  return rows.map((r) => ({
    channel: r.channel,
    currency: r.currency,
    orders: 0,
    finished: 0,
    amount: providerOf(db) === "sqlite" ? exactSum(r) : new D(r.total ?? 0),
  }));
}
