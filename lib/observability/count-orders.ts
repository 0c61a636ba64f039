import "server-only";
import type { Db } from "@/lib/db/client";
import { isFinal, ORDER_STATES, type OrderState } from "@/lib/orders/state-machine";

// The `orders` gauge's counts. Counting every order at every scrape grows with the table and,
// on SQLite, runs on the event loop (better-sqlite3 is synchronous): at 1M orders it took 60 ms
// there and 220–290 ms of PostgreSQL's CPU, per scrape and per instance. So the open states,
// the backlog an operator watches, are counted at every scrape (an index range over them:
// 2–3 ms at 1M orders with 10,000 open), and the final ones, which only grow, are recounted at
// most every `finalMaxAgeMs` (METRICS_FINAL_ORDERS_SECONDS). Between two recounts an order that
// closes leaves its open state at once and joins its final state at the next recount.

const OPEN = ORDER_STATES.filter((s) => !isFinal(s));

export type OrderCounts = Record<OrderState, number>;

/** A counter with its own cache of the final states' counts (one per process, in metrics.ts). */
export function createOrderCounter(opts: { finalMaxAgeMs: number; now?: () => number }) {
  const now = opts.now ?? Date.now;
  let finals: { at: number; counts: Partial<OrderCounts> } | null = null;
  // Scrapes that arrive while a recount runs share it instead of starting their own.
  let recount: Promise<Partial<OrderCounts>> | null = null;

  const byState = async (db: Db, states?: readonly OrderState[]) => {
    const rows = await db.order.groupBy({
      by: ["status"],
      ...(states && { where: { status: { in: [...states] } } }),
      _count: { _all: true },
    });
    return Object.fromEntries(rows.map((r) => [r.status, r._count._all])) as Partial<OrderCounts>;
  };

  return async function countOrders(db: Db): Promise<OrderCounts> {
    let final: Partial<OrderCounts>;
    if (finals && now() - finals.at < opts.finalMaxAgeMs) final = finals.counts;
    else {
      recount ??= (async () => {
        const at = now();
        try {
          // All states in one pass: on SQLite that is faster than the same scan filtered to two.
          const counts = await byState(db);
          finals = { at, counts };
          return counts;
        } finally {
          recount = null;
        }
      })();
      final = await recount;
    }
    const open = await byState(db, OPEN);
    return Object.fromEntries(ORDER_STATES.map((s) => [s, (isFinal(s) ? final[s] : open[s]) ?? 0])) as OrderCounts;
  };
}
