import "server-only";
import { setTimeout as sleep } from "node:timers/promises";
import { addressRejectionReason, getCurrency, validateAddress, validateExtraId } from "@/lib/currencies";
import type { Db, Order } from "@/lib/db/client";
import { isFinal, orderStateOf } from "@/lib/domain/order-states";
import { AppError } from "@/lib/errors";
import { leaseMs, takeLease } from "@/lib/jobs/lease";
import { ORDER_ID_RE } from "@/lib/orders/get-order";

// What the console's order actions share: the order or the console's 404, what an audit row
// keeps of an order before and after, the 409 of an action its state no longer allows, and
// which actions the state allows now (shown in the detail, checked again by each action).

/** The opened order with this id, or NOT_FOUND (an order still being opened is no order yet). */
export async function loadOrder(db: Db, orderId: string): Promise<Order> {
  const id = orderId.toLowerCase();
  const order = ORDER_ID_RE.test(id) ? await db.order.findUnique({ where: { id } }) : null;
  if (!order || order.payinAddress === null) throw new AppError("NOT_FOUND", "No order with this id.");
  return order;
}

/** What an audit row records of an order before and after an action. */
export const snapshotOf = (o: Order) => ({
  status: o.status,
  upstreamStatus: o.upstreamStatus,
  stateReason: o.stateReason,
  refundAddress: o.refundAddress,
  refundExtraId: o.refundExtraId,
  refundState: o.refundState,
  refundHash: o.refundHash,
  payoutHash: o.payoutHash,
  failureReason: o.failureReason,
});

export const invalidState = (message: string) => new AppError("INVALID_ORDER_STATE", message);

/** FixedFloat's emergency without a choice yet: its raw status as the adapter keeps it, EMERGENCY/<reasons>/NONE. */
export const awaitsChoice = (o: Order) =>
  o.provider === "fixedfloat" && o.stateReason === "needs_action" && /^EMERGENCY\/.*\/NONE$/.test(o.upstreamStatus ?? "");

export type ConsoleOrderAction = "sync" | "refund_address" | "choice" | "resolve" | "note";

/** The actions the order's state allows now. */
export function allowedActions(o: Order): ConsoleOrderAction[] {
  const status = orderStateOf(o.status);
  const open = !isFinal(status);
  const out: ConsoleOrderAction[] = [];
  if (open) out.push("sync");
  const refundOpen = open ? o.stateReason !== "refunding" : status === "failed" && o.refundState === "awaiting_address";
  if (!o.refundAddress && refundOpen) out.push("refund_address");
  if (open && awaitsChoice(o)) out.push("choice");
  if (open || (status === "failed" && (o.refundState === "awaiting_address" || o.refundState === "pending"))) out.push("resolve");
  out.push("note");
  return out;
}

/** The order as the console shows it: every column but the secrets (the status link's hash, the provider's token). */
export function orderView(o: Order) {
  const { accessTokenHash: _a, upstreamData: _u, leaseToken: _l, ...rest } = o;
  return { ...rest, actions: allowedActions(o) };
}

/** A refund address (and extra id) checked for the order's source currency, as at creation. */
export function checkRefundAddress(o: Order, address: string, extraId: string | null) {
  const from = getCurrency(o.fromCurrency);
  if (!from) throw invalidState(`The order's currency ${o.fromCurrency} is no longer listed.`);
  if (!address || !validateAddress(from, address)) {
    const why = address ? addressRejectionReason(from, address) : null;
    throw new AppError(
      "INVALID_REFUND_ADDRESS",
      `The refund address is not a valid ${from.name} (${from.network}) address.${why ? ` ${why}` : ""}`,
    );
  }
  if (extraId !== null && !validateExtraId(from, extraId))
    throw new AppError("INVALID_REFUND_EXTRA_ID", `The refund extra ID is not valid for ${from.ticker}.`);
}

const CLAIM_WAIT_MS = 10_000;

/**
 * Takes the order's claim (lib/jobs/lease.ts), waiting a moment while a worker holds it, so no
 * worker step lands between what an action reads and what it writes. ENGINE_UNAVAILABLE if it
 * stays held.
 */
export async function claimOrder(db: Db, orderId: string): Promise<string> {
  const deadline = Date.now() + CLAIM_WAIT_MS;
  for (;;) {
    const { token, taken } = await takeLease(db, "order", { ids: [orderId], where: {}, now: new Date(), ms: leaseMs() });
    if (taken === 1) return token;
    if (Date.now() > deadline) throw new AppError("ENGINE_UNAVAILABLE", "The order is being worked on; try again in a moment.");
    await sleep(50);
  }
}
