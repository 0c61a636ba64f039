import "server-only";
import type { Db, Order } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { applyJournalPlan } from "@/lib/ledger/ledger";
import { announceOrder } from "./announce";
import type { OpeningPlan } from "./opening";

/**
 * The general path of an order's opening: its plan (opening.ts) written in an interactive
 * Prisma transaction, with the order.created message for a reseller's webhook endpoints
 * (lib/orders/announce.ts), which the one-step paths leave to it. Null when the claim no longer
 * holds the order (someone else opened it), or the new order's provider exchange was settled
 * by a recovery (lib/orders/recover-intents.ts).
 */
export function openOrderPrisma(db: Db, plan: OpeningPlan): Promise<Order | null> {
  const { order, write, now } = plan;
  return writeTransaction(db, async (tx) => {
    if (write.token === null) {
      // As open-order-postgres.ts: the exchange's intent committed with the order, if it is still open.
      const { intent } = write;
      const i =
        intent?.provider != null
          ? await tx.upstreamIntent.updateMany({
              where: { orderId: order.id, provider: intent.provider, upstreamId: intent.upstreamId, outcome: null },
              data: { outcome: "committed", resolvedAt: now },
            })
          : { count: 0 };
      if (intent !== null && i.count !== 1 && (await tx.upstreamIntent.count({ where: { orderId: order.id } })) > 0) return null;
      await tx.order.create({ data: order });
    } else {
      const r = await tx.order.updateMany({ where: { id: order.id, leaseToken: write.token, payinAddress: null }, data: write.set });
      if (r.count !== 1) return null;
    }
    const event = await tx.orderEvent.create({ data: plan.event });
    await applyJournalPlan(tx, plan.journal);
    await announceOrder(tx, order, { previousStatus: null, now, events: [event] });
    return order;
  });
}
