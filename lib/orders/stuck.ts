import "server-only";
import type { Db, Order } from "@/lib/db/client";
import { OPEN_STATES } from "@/lib/domain/order-states";
import { getLogger } from "@/lib/log";

// Upstream orders that stay open far longer than a swap takes: flagged (stuckAt) for the
// operator, who lists them with `npm run cli -- orders:stuck`. A flag clears when the order
// moves (lib/orders/advance-order.ts).

/** Flags open upstream orders created more than `afterMinutes` ago; returns the newly flagged ones. */
export async function flagStuckOrders(db: Db, opts: { now: Date; afterMinutes: number }): Promise<Order[]> {
  const where = {
    provider: { not: null },
    payinAddress: { not: null },
    status: { in: OPEN_STATES },
    stuckAt: null,
    createdAt: { lt: new Date(opts.now.getTime() - opts.afterMinutes * 60_000) },
  };
  const found = await db.order.findMany({ where, take: 500 });
  if (!found.length) return [];
  await db.order.updateMany({ where: { ...where, id: { in: found.map((o) => o.id) } }, data: { stuckAt: opts.now } });
  for (const o of found)
    getLogger().warn(
      {
        orderId: o.id,
        provider: o.provider,
        upstreamId: o.upstreamId,
        state: o.status,
        upstreamStatus: o.upstreamStatus,
        reason: o.stateReason,
      },
      "upstream order stuck: still open past PROVIDERS_STUCK_AFTER_MINUTES",
    );
  return found.map((o) => ({ ...o, stuckAt: opts.now }));
}

/** Every flagged order that is still open, oldest first. */
export function listStuckOrders(db: Db): Promise<Order[]> {
  return db.order.findMany({ where: { stuckAt: { not: null }, status: { in: OPEN_STATES } }, orderBy: { createdAt: "asc" } });
}
