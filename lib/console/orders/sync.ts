import "server-only";
import type { Db, Order, Tx } from "@/lib/db/client";
import { isFinal, orderStateOf } from "@/lib/domain/order-states";
import { AppError } from "@/lib/errors";
import { type Actor, recordAudit } from "@/lib/operators/audit";
import { syncOrderNow } from "@/lib/worker/run-worker";
import { invalidState, loadOrder, orderView, snapshotOf } from "./shared";

// "Sync now" (issue 52, point 4): the order's provider read at once, as a worker's pass reads
// it, and its answer applied by the worker's own code (a move, a new provider status, or a
// failed read counted towards the backoff). The audit row says what the read changed, written in
// the transaction of that change; a read that changed nothing is recorded after it.

export async function syncConsoleOrder(opts: { db: Db; orderId: string; by: Actor }) {
  const { db } = opts;
  const before = await loadOrder(db, opts.orderId);
  if (isFinal(orderStateOf(before.status))) throw invalidState(`The order is ${before.status}: there is nothing to read.`);
  const audit = (tx: Db | Tx, from: Order, to: Order, changed: boolean) =>
    recordAudit(tx, opts.by, {
      action: "order.sync",
      targetType: "order",
      targetId: from.id,
      before: snapshotOf(from),
      after: { ...snapshotOf(to), changed, lastError: to.lastError },
    }).then(() => {});
  let audited = false;
  const r = await syncOrderNow(db, {
    orderId: before.id,
    onChange: async (tx, from, to) => {
      audited = true;
      await audit(tx, from, to, true);
    },
  });
  if (r.outcome === "closed") throw invalidState("The order is no longer open.");
  if (r.outcome === "busy") throw new AppError("ENGINE_UNAVAILABLE", "The order is being worked on; try again in a moment.");
  const after = await loadOrder(db, before.id);
  // Nothing changed (or the read failed, counted towards the worker's backoff): the read is recorded on its own.
  if (!audited) await audit(db, before, after, false);
  return { order: orderView(after), moved: r.moved !== null, lastError: after.lastError };
}
