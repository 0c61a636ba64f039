import "server-only";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

/**
 * A fixed-rate quote opens one order. Called with the order already reserved (its row
 * exists), it marks the quote as that order's with a conditional UPDATE: of orders racing for
 * one rateId, the database lets one claim it. Because the reservation is written before its
 * claim, a claim whose order no longer exists is dead for good (the opening failed and the
 * reservation was dropped, or the process died and the worker dropped it; order ids are never
 * reused), and is taken over, so a client may retry after a failed opening. An idempotent
 * replay never comes here: it is answered with its order before anything is reserved.
 */
export async function claimRateQuote(db: Db, opts: { rateId: string; orderId: string }): Promise<void> {
  const { rateId, orderId } = opts;
  let holder: string | null = null;
  // A few rounds at most: each round either claims, finds a live holder, or sees a dead one replaced.
  for (let round = 0; round < 3; round++) {
    const claimed = await db.rateQuote.updateMany({ where: { id: rateId, orderId: holder }, data: { orderId } });
    if (claimed.count === 1) return;
    const quote = await db.rateQuote.findUnique({ where: { id: rateId }, select: { orderId: true } });
    // Validated a moment ago; gone only if the daily cleanup dropped it meanwhile.
    if (!quote) throw new AppError("INVALID_RATE_ID", "This rateId is unknown; get a fixed-rate estimate for this order first.");
    if (quote.orderId === orderId) return;
    if (quote.orderId !== null && (await db.order.count({ where: { id: quote.orderId } })) > 0) break;
    holder = quote.orderId;
  }
  throw new AppError("RATE_ID_USED", "This rateId was already used to open an order; get a new fixed-rate estimate.");
}
