import "server-only";
import type { Order } from "@/lib/db/client";
import { isFinal, orderStateOf } from "@/lib/domain/order-states";

/** A waiting order with nothing scheduled changes only when the user pays: look every so often. */
const WAITING_POLL_SECONDS = 10;
const MAX_POLL_SECONDS = 60;

/**
 * When it is worth reading an order again, in whole seconds (the `Poll-After` header of
 * GET /exchange/{id}): when the worker next looks at it, at least 1 s and at most a minute;
 * null for a final order, which does not change any more.
 */
export function pollAfterSeconds(o: Pick<Order, "status" | "nextActionAt" | "expiresAt">, now = new Date()): number | null {
  const state = orderStateOf(o.status);
  if (isFinal(state)) return null;
  let next = o.nextActionAt?.getTime() ?? now.getTime() + WAITING_POLL_SECONDS * 1000;
  if (state === "waiting") next = Math.min(next, o.expiresAt.getTime());
  return Math.min(MAX_POLL_SECONDS, Math.max(1, Math.ceil((next - now.getTime()) / 1000)));
}
