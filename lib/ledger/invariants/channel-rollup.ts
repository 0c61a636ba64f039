import "server-only";
import { joinSql, sql, type Tx } from "@/lib/db/client";
import { D, type Dec } from "@/lib/money/decimal";
import { dayOf } from "../daily";
import { touchedByDay } from "./daily-rollup";
import { CANONICAL_AMOUNT, type CheckContext, type EntryRow, type LedgerInvariant, PAGE, pages, type Report } from "./invariant";

// The channel rollup (lib/ledger/channel-daily.ts): per (reseller, UTC day, channel, currency)
// the opened orders created that day, the finished ones and their fromAmount, and the
// order_profit_settle entries created that day, under their orders' channel.
type ChannelSums = Map<string, { orders: number; finished: number; volume: Dec; profit: Dec }>;
const channelSum = (sums: ChannelSums, key: string) => {
  const s = sums.get(key) ?? { orders: 0, finished: 0, volume: new D(0), profit: new D(0) };
  sums.set(key, s);
  return s;
};
const CHANNEL_ORDER_SELECT = {
  resellerId: true,
  channel: true,
  createdAt: true,
  fromCurrency: true,
  status: true,
  fromAmount: true,
} as const;
type ChannelOrder = {
  resellerId: string | null;
  channel: string | null;
  createdAt: Date;
  fromCurrency: string;
  status: string;
  fromAmount: string;
};
function addChannelOrder(sums: ChannelSums, o: ChannelOrder): void {
  const s = channelSum(sums, JSON.stringify([o.resellerId, dayOf(o.createdAt), o.channel ?? "", o.fromCurrency]));
  s.orders++;
  if (o.status !== "finished") return;
  s.finished++;
  if (CANONICAL_AMOUNT.test(o.fromAmount)) s.volume = s.volume.plus(o.fromAmount);
}
const SETTLE_SELECT = {
  id: true,
  resellerId: true,
  createdAt: true,
  currency: true,
  amount: true,
  order: { select: { channel: true } },
} as const;
type SettleRow = { resellerId: string; createdAt: Date; currency: string; amount: string; order: { channel: string | null } | null };
function addChannelSettle(sums: ChannelSums, e: SettleRow): void {
  let amount: Dec;
  try {
    amount = new D(e.amount);
  } catch {
    return; // not a number: "entries are well formed" names it
  }
  const s = channelSum(sums, JSON.stringify([e.resellerId, dayOf(e.createdAt), e.order?.channel ?? "", e.currency]));
  s.profit = s.profit.plus(amount);
}

/** Rollup rows against the sums their orders and entries give; `sums` is emptied of the keys judged. */
function judgeChannelRows(
  rows: {
    resellerId: string;
    day: string;
    channel: string;
    currency: string;
    orders: number;
    finished: number;
    volume: string;
    profit: string;
  }[],
  sums: ChannelSums,
  report: Report,
): void {
  for (const r of rows) {
    const key = JSON.stringify([r.resellerId, r.day, r.channel, r.currency]);
    const s = sums.get(key) ?? { orders: 0, finished: 0, volume: new D(0), profit: new D(0) };
    sums.delete(key);
    const tag = `channel rollup ${r.resellerId}/${r.channel || "none"}/${r.day}/${r.currency}`;
    if (r.orders !== s.orders || r.finished !== s.finished)
      report(`${tag} counts ${r.orders} orders, ${r.finished} finished, but its orders give ${s.orders}, ${s.finished}`);
    for (const [col, want] of [
      ["volume", s.volume],
      ["profit", s.profit],
    ] as const) {
      const held = r[col];
      if (!CANONICAL_AMOUNT.test(held)) report(`${tag} has ${col} '${held}'`);
      else if (!new D(held).eq(want))
        report(`${tag} has ${col} ${held} but its ${col === "volume" ? "finished orders" : "credits"} sum to ${want.toFixed()}`);
    }
  }
  for (const [key, s] of sums)
    if (s.orders || s.finished || !s.volume.isZero() || !s.profit.isZero())
      report(`channel figures of ${JSON.parse(key).join("/")} (${s.orders} orders, profit ${s.profit.toFixed()}) have no rollup row`);
}

/**
 * The incremental part of "each channel rollup row equals its orders and credited profit": every
 * rollup row of each (reseller, day) an order changed since the checkpoint was created on, or a
 * new credit was made on, against that day's orders (by the (resellerId, createdAt, status) index)
 * and credits: the new ones (after the checkpoint's `upTo`, read already, by (reseller, day), each under its order's channel) and
 * those up to `upTo` (by (resellerId, kind, createdAt)). Other days are trusted.
 */
async function judgeTouchedChannelDays(
  tx: Tx,
  keys: Set<string>,
  known: { credits: Map<string, EntryRow[]>; channelOf: Map<string, string | null>; upTo: number },
  report: Report,
  ctx: CheckContext,
): Promise<void> {
  for (const { day, createdAt, resellers } of touchedByDay(keys, (k) => [k[0], k[1]])) {
    // A page of resellers' whole day at once, three statements: paged by id (ORDER BY id LIMIT),
    // SQLite's planner walks each reseller's whole ledger by (resellerId, id) instead of the day's
    // (resellerId, kind, createdAt) range; a statement per reseller cost 3 s for 1,000 resellers.
    for (const ids of pages(resellers.keys())) {
      const sums: ChannelSums = new Map();
      const orders = await tx.order.findMany({
        where: { resellerId: { in: ids }, createdAt, payinAddress: { not: null } },
        select: { id: true, ...CHANNEL_ORDER_SELECT },
      });
      ctx.stats.orders += orders.length;
      for (const o of orders) addChannelOrder(sums, o);
      const credits = await tx.$queryRaw<(Omit<SettleRow, "order"> & { channel: string | null })[]>(
        sql`SELECT e."resellerId", e."createdAt", e."currency", e."amount", o."channel"
            FROM "LedgerEntry" e LEFT JOIN "Order" o ON o."id" = e."orderId"
            WHERE e."resellerId" IN (${joinSql(ids)}) AND e."kind" = 'order_profit_settle'
              AND e."createdAt" >= ${createdAt.gte} AND e."createdAt" < ${createdAt.lt} AND e."id" <= ${known.upTo}`,
      );
      ctx.stats.entries += credits.length;
      for (const e of credits) addChannelSettle(sums, { ...e, order: { channel: e.channel } });
      for (const id of ids)
        for (const e of known.credits.get(JSON.stringify([id, day])) ?? [])
          addChannelSettle(sums, { ...e, order: e.orderId ? { channel: known.channelOf.get(e.orderId) ?? null } : null });
      judgeChannelRows(await tx.channelDaily.findMany({ where: { day, resellerId: { in: ids } } }), sums, report);
    }
  }
}

export const channelRollupMatches: LedgerInvariant = {
  id: "channel-rollup",
  name: "each channel rollup row equals its orders and credited profit",
  async full(tx, report, ctx) {
    const sums: ChannelSums = new Map();
    let after = "";
    for (;;) {
      const page = await tx.order.findMany({
        where: { resellerId: { not: null }, payinAddress: { not: null }, id: { gt: after } },
        orderBy: { id: "asc" },
        take: PAGE,
        select: { id: true, ...CHANNEL_ORDER_SELECT },
      });
      ctx.stats.orders += page.length;
      for (const o of page) addChannelOrder(sums, o);
      if (page.length < PAGE) break;
      after = page[page.length - 1].id;
    }
    let afterId = 0;
    for (;;) {
      const page = await tx.ledgerEntry.findMany({
        where: { kind: "order_profit_settle", id: { gt: afterId } },
        orderBy: { id: "asc" },
        take: PAGE,
        select: SETTLE_SELECT,
      });
      ctx.stats.entries += page.length;
      for (const e of page) addChannelSettle(sums, e);
      if (page.length < PAGE) break;
      afterId = page[page.length - 1].id;
    }
    const rows = await tx.channelDaily.findMany({
      orderBy: [{ resellerId: "asc" }, { day: "asc" }, { channel: "asc" }, { currency: "asc" }],
    });
    judgeChannelRows(rows, sums, report);
  },
  // Every row of each (reseller, day) that a new credit was made on, or that an order read by the
  // incremental check (of a new entry, or changed since) was created on.
  incremental: (since, report) => {
    /** The (reseller, UTC day)s to check again. */
    const days = new Set<string>();
    /** The new credits, by (reseller, UTC day) (their orders' channels are read with the orders). */
    const credits = new Map<string, EntryRow[]>();
    return {
      entry(e) {
        if (e.kind !== "order_profit_settle") return;
        const day = JSON.stringify([e.resellerId, dayOf(e.createdAt)]);
        days.add(day);
        const same = credits.get(day);
        if (same) same.push(e);
        else credits.set(day, [e]);
      },
      async finish() {
        const channelOf = new Map<string, string | null>();
        for (const o of await since.orders()) {
          channelOf.set(o.id, o.channel);
          if (o.resellerId !== null) days.add(JSON.stringify([o.resellerId, dayOf(o.createdAt)]));
        }
        await judgeTouchedChannelDays(since.tx, days, { credits, channelOf, upTo: since.upTo.entry }, report, since.ctx);
      },
    };
  },
};
