import "server-only";
import type { Db, Prisma } from "@/lib/db/client";
import { decodeKeysetCursor, encodeKeysetCursor } from "@/lib/db/keyset-cursor";
import { ORDER_ID_RE } from "@/lib/orders/get-order";
import { orderView } from "./shared";

// Orders across all resellers (issue 52, point 3): exact search and filters, keyset pages
// newest first by (createdAt, id), as the reseller's list pages (lib/orders/get-order.ts).

export interface ConsoleOrderFilter {
  /** Our id, the provider's id, a payin, payout or refund address or hash, or a reseller's wallet: matched exactly. */
  q?: string;
  status?: string;
  reason?: string;
  provider?: string;
  channel?: string;
  /** Only orders created more than this many minutes ago. */
  olderThanMinutes?: number;
  cursor?: string;
  limit?: number;
}

const isOrderId = (id: unknown): id is string => typeof id === "string" && ORDER_ID_RE.test(id);

/**
 * What `q` matches, each an equality: the primary key, the reseller's wallet (its unique
 * index, then the reseller's orders), and the order's provider id, addresses and hashes.
 */
async function searchConditions(db: Db, raw: string): Promise<Prisma.OrderWhereInput[]> {
  const q = raw.trim();
  const lower = q.toLowerCase();
  const or: Prisma.OrderWhereInput[] = [];
  if (ORDER_ID_RE.test(lower)) or.push({ id: lower });
  if (/^0x[0-9a-f]{40}$/.test(lower)) {
    const reseller = await db.reseller.findUnique({ where: { walletAddress: lower }, select: { id: true } });
    if (reseller) or.push({ resellerId: reseller.id });
  }
  for (const v of new Set([q, lower]))
    or.push(
      { upstreamId: v },
      { payinAddress: v },
      { payoutAddress: v },
      { refundAddress: v },
      { payinHash: v },
      { payoutHash: v },
      { refundHash: v },
    );
  return or;
}

/** One page of orders, newest first, and the cursor of the next (older) page, or null on the last. */
export async function listConsoleOrders(opts: { db: Db; filter: ConsoleOrderFilter; now?: Date }) {
  const { db, filter } = opts;
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), 100);
  const and: Prisma.OrderWhereInput[] = [{ payinAddress: { not: null } }];
  if (filter.status) and.push({ status: filter.status });
  if (filter.reason) and.push({ stateReason: filter.reason });
  if (filter.provider) and.push({ provider: filter.provider });
  if (filter.channel) and.push({ channel: filter.channel });
  if (filter.olderThanMinutes !== undefined)
    and.push({ createdAt: { lt: new Date((opts.now ?? new Date()).getTime() - filter.olderThanMinutes * 60_000) } });
  if (filter.q?.trim()) and.push({ OR: await searchConditions(db, filter.q) });
  if (filter.cursor) {
    const c = decodeKeysetCursor(filter.cursor, isOrderId);
    and.push({ OR: [{ createdAt: { lt: c.at } }, { createdAt: c.at, id: { lt: c.id } }] });
  }
  const rows = await db.order.findMany({ where: { AND: and }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    orders: page.map(orderView),
    next: rows.length > limit && last ? encodeKeysetCursor({ at: last.createdAt, id: last.id }) : null,
  };
}
