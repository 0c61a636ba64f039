import type { Db, Prisma, Tx } from "@/lib/db/client";
import { applyChannelDaily, type ChannelDelta, channelDeltas } from "@/lib/ledger/channel-daily";
import { dayOf } from "@/lib/ledger/daily";
import { D } from "@/lib/money/decimal";

/**
 * The channel rollup (lib/ledger/channel-daily.ts) made again from the orders and credits, for
 * tests that write orders around lib/orders (rows created as they are wanted, finished or not):
 * every row replaced by the sums its orders and order_profit_settle entries give.
 */
export async function rebuildChannelRollup(db: Db): Promise<void> {
  const orders = await db.order.findMany({ where: { resellerId: { not: null }, payinAddress: { not: null } } });
  const settled = await db.ledgerEntry.findMany({
    where: { kind: "order_profit_settle" },
    include: { order: { select: { channel: true } } },
  });
  const deltas: ChannelDelta[] = [
    ...orders.map((o) => ({
      resellerId: o.resellerId!,
      day: dayOf(o.createdAt),
      channel: o.channel ?? "",
      currency: o.fromCurrency,
      orders: 1,
      finished: o.status === "finished" ? 1 : 0,
      volume: new D(o.status === "finished" ? o.fromAmount : 0),
      profit: new D(0),
    })),
    ...settled.map((e) => ({
      resellerId: e.resellerId,
      day: dayOf(e.createdAt),
      channel: e.order?.channel ?? "",
      currency: e.currency,
      orders: 0,
      finished: 0,
      volume: new D(0),
      profit: new D(e.amount),
    })),
  ];
  await db.$transaction(async (tx) => {
    await tx.channelDaily.deleteMany({});
    await applyChannelDaily(tx, channelDeltas(deltas));
  });
}

/**
 * Writes orders around lib/orders and adds them to the channel rollup in the same transaction, as
 * opening them does (and, with `finished`, as settleProfit would have on finishing them, for
 * orders written finished with no credit): for suites that share a database with others, whose
 * after-file checks may run at any moment.
 */
export async function createOrdersRolledUp(
  db: Db,
  orders: Prisma.OrderCreateManyInput[],
  opts: { finished?: boolean } = {},
): Promise<void> {
  await db.$transaction((tx) => writeOrdersRolledUp(tx, orders, opts), { timeout: 120_000 });
}

/** createOrdersRolledUp inside the caller's transaction (with the postings that go with the orders). */
export async function writeOrdersRolledUp(tx: Tx, orders: Prisma.OrderCreateManyInput[], opts: { finished?: boolean } = {}): Promise<void> {
  const deltas = orders
    .filter((o) => o.resellerId)
    .map((o) => ({
      resellerId: o.resellerId!,
      day: dayOf(new Date(o.createdAt ?? Date.now())),
      channel: o.channel ?? "",
      currency: o.fromCurrency,
      orders: 1,
      finished: opts.finished ? 1 : 0,
      volume: new D(opts.finished ? String(o.fromAmount) : 0),
      profit: new D(0),
    }));
  await tx.order.createMany({ data: orders });
  await applyChannelDaily(tx, channelDeltas(deltas));
}
