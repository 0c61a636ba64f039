import "server-only";
import { setTimeout as sleep } from "node:timers/promises";
import { addressRejectionReason, getCurrency, validateAddress, validateExtraId } from "@/lib/currencies";
import type { Db, Order, OrderEvent, Tx } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { isFinal, orderStateOf } from "@/lib/domain/order-states";
import { getEngine } from "@/lib/engine";
import { callEngine } from "@/lib/engine/call";
import { AppError } from "@/lib/errors";
import { leaseMs, releaseLease, takeLease } from "@/lib/jobs/lease";
import { announceRequiredAction } from "./announce";
import { getOrderForCaller, getOrderForToken } from "./get-order";
import { refundAddressUsable } from "./required-action";
import { engineDeadlineMs, swapSnapshot } from "./swap";

// A refund address given after creation (issue 51): the way out of a hold or a failure that has
// none. One function for every door: the v1 API (an API key of the order's reseller), the hosted
// page's API (the status link's secret) and the status page's server action.

/** The event note of a refund address given after creation (the order's timeline; not a state). */
export const REFUND_ADDRESS_NOTE = "refund_address_set";

/** Who asks: the order's reseller (a v1 API key), or the holder of the order's status link secret. */
export type RefundAddressAuth = { resellerId: string } | { token: string | null };

export interface SetRefundAddressOptions {
  orderId: string;
  auth: RefundAddressAuth;
  refundAddress: string;
  refundExtraId?: string | null;
  /** The end user's IP, passed to providers that want it (SideShift's x-user-ip). */
  clientIp?: string;
  /** The sandbox fault switch's scope; by default the order's reseller's. */
  scope?: string;
  now?: Date;
  /** Called in the write's transaction with the order before and after (the console's audit row). */
  inTransaction?: (tx: Tx, before: Order, after: Order) => Promise<void>;
}

const blankToNull = (s: string | null | undefined) => {
  const t = s?.trim();
  return t ? t : null;
};

const locked = (why: string) => new AppError("REFUND_ADDRESS_LOCKED", why);

/**
 * Why the order's refund address can no longer be given or changed, or null when it can:
 * finished, refunded or being refunded, failed with nothing to refund, or an address already
 * set (no provider here changes one: SideShift's call is documented for a swap without one).
 */
function lockReason(o: Order): string | null {
  const status = orderStateOf(o.status);
  if (status === "finished") return "The order is finished: there is nothing to refund.";
  if (o.refundAddress) return "The order already has a refund address; it cannot be changed.";
  if (status === "failed" && o.refundState !== "awaiting_address")
    return o.refundState ? "The refund is already under way or sent." : "The order failed with nothing to refund.";
  if (!isFinal(status) && o.stateReason === "refunding") return "The refund is already under way.";
  return null;
}

/** The address (and extra id) checked for the order's source currency, as at creation. */
function checkAddress(o: Order, address: string, extraId: string | null) {
  const from = getCurrency(o.fromCurrency);
  if (!from) throw locked(`The order's currency ${o.fromCurrency} is no longer listed.`);
  if (!validateAddress(from, address)) {
    const reason = addressRejectionReason(from, address);
    const message = `The refund address is not a valid ${from.name} (${from.network}) address.`;
    throw new AppError("INVALID_REFUND_ADDRESS", reason ? `${message} ${reason}` : message);
  }
  if (extraId !== null && !validateExtraId(from, extraId))
    throw new AppError(
      "INVALID_REFUND_EXTRA_ID",
      from.hasExtraId
        ? `The refund ${from.extraIdName ?? "extra ID"} is not valid for ${from.ticker}.`
        : `${from.ticker} does not use an extra ID.`,
    );
}

/**
 * Gives the order its refund address: checked for the source currency, refused for an order
 * whose refund address can no longer change (REFUND_ADDRESS_LOCKED) or whose holder cannot use
 * one (REFUND_ADDRESS_UNSUPPORTED), passed to the provider where the order is held upstream
 * (before anything is written: its refusal changes nothing here), then stored with a note on
 * the order's timeline and, if the order's requiredAction becomes another non-null one, the
 * order.action_required event, in one transaction. The same address again answers the order as
 * it is (a retry). Returns the order with its timeline.
 */
export async function setRefundAddress(db: Db, opts: SetRefundAddressOptions): Promise<Order & { events: OrderEvent[] }> {
  const order =
    "resellerId" in opts.auth
      ? await getOrderForCaller(db, { orderId: opts.orderId, caller: { resellerId: opts.auth.resellerId } })
      : await getOrderForToken(db, { orderId: opts.orderId, token: opts.auth.token });
  // A keyless v1 order is visible by its id, but nobody may redirect its refund on that alone.
  if (!order.resellerId) throw new AppError("ORDER_NOT_FOUND", "No order with this id.");
  const address = opts.refundAddress.trim();
  const extraId = blankToNull(opts.refundExtraId);
  if (order.refundAddress === address && (order.refundExtraId ?? null) === extraId) return order;
  const why = lockReason(order);
  if (why) throw locked(why);
  if (!refundAddressUsable(order))
    throw new AppError("REFUND_ADDRESS_UNSUPPORTED", "This order's exchange provider cannot take a refund address after creation.");
  if (!address) throw new AppError("INVALID_REFUND_ADDRESS", "The refund address is empty.");
  checkAddress(order, address, extraId);

  // One giver at a time, and no worker step meanwhile: the order's lease (lib/jobs/lease.ts) is
  // held from before the provider is asked until the address is written, so two requests with
  // different addresses never both reach the provider, and the row written is the row the
  // provider was asked about.
  const token = await claimOrder(db, order.id);
  try {
    const claimed = await getOrderForCaller(db, { orderId: order.id, caller: { resellerId: order.resellerId } });
    if (claimed.refundAddress === address && (claimed.refundExtraId ?? null) === extraId) return claimed; // a concurrent retry won
    const why2 = lockReason(claimed);
    if (why2) throw locked(why2);

    const engine = getEngine();
    const swap = swapSnapshot(claimed);
    const ctx = { scope: opts.scope ?? `reseller:${order.resellerId}`, clientIp: opts.clientIp };
    const sent = engine.setRefundAddress
      ? await callEngine(engineDeadlineMs(), ctx, (c) => engine.setRefundAddress!(swap, { address, extraId }, c))
      : { refundHash: null };

    const now = opts.now ?? new Date();
    // The row as it is now, under the write lock (a sandbox deposit moves an order without a
    // claim); a write lost to such a change is tried again.
    for (let attempt = 1; ; attempt++) {
      const outcome = await writeTransaction(db, async (tx) => {
        const fresh = await tx.order.findUnique({ where: { id: order.id } });
        if (!fresh) throw new AppError("ORDER_NOT_FOUND", "No order with this id.");
        const why = lockReason(fresh);
        if (why) throw locked(why);
        const patch = patchFor(fresh, sent.refundHash, address, extraId, now);
        const r = await tx.order.updateMany({
          where: { id: fresh.id, status: fresh.status, stateReason: fresh.stateReason, refundAddress: null, leaseToken: token },
          data: { ...patch, leaseToken: null, leaseUntil: null },
        });
        if (r.count !== 1) return "again";
        await tx.orderEvent.create({ data: { orderId: fresh.id, status: fresh.status, note: REFUND_ADDRESS_NOTE, at: now } });
        await announceRequiredAction(tx, fresh, { ...fresh, ...patch } as Order, { now });
        if (opts.inTransaction) await opts.inTransaction(tx, fresh, { ...fresh, ...patch } as Order);
        return "done";
      });
      if (outcome === "done") return getOrderForCaller(db, { orderId: order.id, caller: { resellerId: order.resellerId } });
      if (attempt >= 3) throw locked("The order keeps changing; read it and try again.");
    }
  } finally {
    // Matches nothing once the write released it.
    await releaseLease(db, "order", order.id, token);
  }
}

/** How long a request waits for the order's claim (a worker's read of it is held by the same claim). */
const CLAIM_WAIT_MS = 10_000;

/** Takes the order's lease, waiting while a worker (or another request) holds it. */
async function claimOrder(db: Db, orderId: string): Promise<string> {
  const deadline = Date.now() + CLAIM_WAIT_MS;
  for (;;) {
    const { token, taken } = await takeLease(db, "order", { ids: [orderId], where: {}, now: new Date(), ms: leaseMs() });
    if (taken === 1) return token;
    if (Date.now() > deadline) throw new AppError("ENGINE_UNAVAILABLE", "The order is being worked on; try again in a moment.");
    await sleep(50);
  }
}

/** What giving the address changes on the row. */
function patchFor(o: Order, refundHash: string | null, address: string, extraId: string | null, now: Date): Partial<Order> {
  const patch: Partial<Order> = { refundAddress: address, refundExtraId: extraId, updatedAt: now };
  // A failure whose refund awaited an address: sent now (its hash), or owed to this address.
  if (o.status === "failed") return Object.assign(patch, { refundState: refundHash ? "sent" : "pending", refundHash });
  // An open order is read again soon: the provider's answer to the address shows without waiting.
  patch.nextActionAt = now;
  // The provider's need was this address (a refund queued without one): answered, the order
  // waits on the provider's next reading to say what it does now (refunding, as a rule), and
  // asks nothing more of the user meanwhile.
  if (o.stateReason === "needs_action") patch.stateReason = null;
  return patch;
}
