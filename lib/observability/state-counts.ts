import "server-only";
import type { Db } from "@/lib/db/client";
import { isFinal, ORDER_STATES, type OrderState } from "@/lib/domain/order-states";

// Counts by state for /metrics' `orders` and `webhook_deliveries` gauges. Counting every row at
// every scrape grows with the table and, on SQLite, runs on the event loop (better-sqlite3 is
// synchronous): at 1M orders a scrape took 66–72 ms there and 136–302 ms on PostgreSQL, per
// instance. So the open states, the backlog an operator watches, are counted at every scrape
// (an index range over them: 2–3 ms at 1M orders with 10,000 open), and the final ones, which
// only grow, are recounted at most every `finalMaxAgeMs` (METRICS_FINAL_ORDERS_SECONDS). Between
// two recounts a row that closes leaves its open state at once and joins its final state at the
// next recount.

type Counts<S extends string> = Record<S, number>;

/** A counter with its own cache of the final states' counts (one per process, in metrics.ts). */
export function createStateCounter<S extends string>(opts: {
  states: readonly S[];
  isFinal: (s: S) => boolean;
  /** Rows by state: of `only` these states (by an index on the state column), or of all. */
  groupBy: (db: Db, only?: S[]) => Promise<{ status: string; count: number }[]>;
  finalMaxAgeMs: number;
  now?: () => number;
}) {
  const now = opts.now ?? Date.now;
  const open = opts.states.filter((s) => !opts.isFinal(s));
  let finals: { at: number; counts: Partial<Counts<S>> } | null = null;
  // Scrapes that arrive while a recount runs share it instead of starting their own.
  let recount: Promise<Partial<Counts<S>>> | null = null;

  const byState = async (db: Db, only?: S[]) =>
    Object.fromEntries((await opts.groupBy(db, only)).map((r) => [r.status, r.count])) as Partial<Counts<S>>;

  return async function countByState(db: Db): Promise<Counts<S>> {
    let final: Partial<Counts<S>>;
    if (finals && now() - finals.at < opts.finalMaxAgeMs) final = finals.counts;
    else {
      recount ??= (async () => {
        const at = now();
        try {
          // All states in one pass: on SQLite that is faster than the same scan filtered to the final ones.
          const counts = await byState(db);
          finals = { at, counts };
          return counts;
        } finally {
          recount = null;
        }
      })();
      final = await recount;
    }
    const current = await byState(db, open);
    return Object.fromEntries(opts.states.map((s) => [s, (opts.isFinal(s) ? final[s] : current[s]) ?? 0])) as Counts<S>;
  };
}

const where = (only?: string[]) => (only ? { status: { in: only } } : {});

/** Orders by state (the spec's six). */
export const createOrderCounter = (o: { finalMaxAgeMs: number; now?: () => number }) =>
  createStateCounter<OrderState>({
    ...o,
    states: ORDER_STATES,
    isFinal,
    groupBy: async (db, only) =>
      (await db.order.groupBy({ by: ["status"], where: where(only), _count: { _all: true } })).map((r) => ({
        status: r.status,
        count: r._count._all,
      })),
  });

export const WEBHOOK_DELIVERY_STATES = ["pending", "succeeded", "failed"] as const;

/** Webhook deliveries by status: pending is the queue; one delivery per message and endpoint, so they outgrow the orders. */
export const createWebhookDeliveryCounter = (o: { finalMaxAgeMs: number; now?: () => number }) =>
  createStateCounter<(typeof WEBHOOK_DELIVERY_STATES)[number]>({
    ...o,
    states: WEBHOOK_DELIVERY_STATES,
    isFinal: (s) => s !== "pending",
    groupBy: async (db, only) =>
      (await db.webhookDelivery.groupBy({ by: ["status"], where: where(only), _count: { _all: true } })).map((r) => ({
        status: r.status,
        count: r._count._all,
      })),
  });
