import "server-only";
import type { Order } from "@/lib/db/client";
import type { OpenedSwap } from "@/lib/engine";
import { type JournalPlan, orderCreatedJournal, planJournal } from "@/lib/ledger/ledger";
import { formatAmount } from "@/lib/money/decimal";

// An order's opening, computed once: the plan of every row it writes and every sum it changes.
// Three renderers write it, none of them deriving an amount or a posting of its own: the general
// path through Prisma (open-order-prisma.ts, which also announces the order to a reseller's
// webhook endpoints), one statement on PostgreSQL (open-order-postgres.ts) and one synchronous
// transaction on SQLite (open-order-sqlite.ts). tests/orders/opening-parity.test.ts opens the
// same order by each and compares every table.

/** The columns an opening sets on a reserved order: the engine's answer, and its claim cleared. */
export const OPENED_COLUMNS = [
  "rate",
  "rawToAmount",
  "toAmount",
  "profit",
  "provider",
  "upstreamId",
  "upstreamData",
  "expiresAt",
  "payinAddress",
  "payinExtraId",
  "leaseToken",
  "leaseUntil",
  "nextActionAt",
  "updatedAt",
] as const satisfies readonly (keyof Order)[];
export type OpenedColumn = (typeof OPENED_COLUMNS)[number];

export interface OpeningPlan {
  /** The order's row as the opening leaves it. */
  order: Order;
  /**
   * A new order (no claim) is inserted whole, and only while the provider exchange it opens
   * with is still an open intent (marked committed), or none was written for it; a reserved
   * order gets `set`, only while `token` still claims it and it has no deposit address.
   */
  write:
    | { token: null; intent: { provider: string | null; upstreamId: string } | null }
    | { token: string; set: Pick<Order, OpenedColumn> };
  /** Its first timeline event. */
  event: { orderId: string; status: "waiting"; at: Date };
  /** Its order_created journal (lib/ledger's orderCreatedJournal): entries, lines, balances and rollup rows. */
  journal: JournalPlan;
  /** A reseller's order, announced (order.created) when the reseller has an enabled webhook endpoint: only the general path writes that. */
  ofReseller: boolean;
  now: Date;
}

/** The order's row as its opening leaves it (as advance-order does: no statement reads it back), from the engine's answer. */
export function openedRow(reserved: Order, swap: OpenedSwap, now: Date): Order {
  // An upstream engine priced the order again (a firm quote) and says where the swap lives.
  const firm = swap.terms
    ? {
        rate: swap.terms.rate.toFixed(),
        rawToAmount: formatAmount(swap.terms.rawToAmount),
        toAmount: formatAmount(swap.terms.toAmount),
        profit: formatAmount(swap.terms.profit),
      }
    : {};
  const upstream = swap.upstream
    ? { provider: swap.upstream.provider, upstreamId: swap.upstream.id, upstreamData: swap.upstream.data }
    : {};
  const patch = {
    ...firm,
    ...upstream,
    ...(swap.expiresAt ? { expiresAt: swap.expiresAt } : {}),
    payinAddress: swap.payinAddress,
    payinExtraId: swap.payinExtraId,
    leaseToken: null,
    leaseUntil: null,
    nextActionAt: swap.firstCheckAfterMs === null ? null : new Date(now.getTime() + swap.firstCheckAfterMs),
    updatedAt: now,
  } satisfies Partial<Record<OpenedColumn, unknown>>;
  return Object.assign({}, reserved, patch);
}

/** The plan of opening `order` (the row as the opening leaves it), reserved under `token` or new (null), at `now`. */
export function openingPlan(order: Order, token: string | null, now: Date): OpeningPlan {
  let write: OpeningPlan["write"];
  if (token === null)
    write = { token, intent: order.upstreamId === null ? null : { provider: order.provider, upstreamId: order.upstreamId } };
  else {
    const set = {} as Record<OpenedColumn, unknown>;
    for (const c of OPENED_COLUMNS) set[c] = order[c];
    write = { token, set: set as Pick<Order, OpenedColumn> };
  }
  return {
    order,
    write,
    event: { orderId: order.id, status: "waiting", at: order.createdAt },
    journal: planJournal(orderCreatedJournal(order), now),
    ofReseller: order.resellerId !== null,
    now,
  };
}

/**
 * Whether the one-step renderers may write the plan: they add each balance change with the
 * database's upsert, which has no InsufficientBalanceError to give; a change that takes from a
 * bucket, or a credit whose channel is to be read, goes the general way (postJournal's checks).
 */
export function oneStepApplies(plan: OpeningPlan): boolean {
  const j = plan.journal;
  return j.creditsToRead.length === 0 && j.balances.every((b) => !b.pending.isNeg() && !b.available.isNeg() && !b.reserved.isNeg());
}
