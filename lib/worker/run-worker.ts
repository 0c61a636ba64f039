import "server-only";
import { now as clockNow } from "@/lib/clock";
import { getConfig } from "@/lib/config";
import type { Db, Order, Prisma, Tx } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { OPEN_STATES } from "@/lib/domain/order-states";
import { type EngineStep, getEngine } from "@/lib/engine";
import { callEngine } from "@/lib/engine/call";
import { retryDelayMs } from "@/lib/jobs/backoff";
import { type Heartbeat, heartbeatStaleMs, newHeartbeat } from "@/lib/jobs/heartbeat";
import { leaseMs, releaseLease, takeLease, unleased } from "@/lib/jobs/lease";
import { getLogger } from "@/lib/log";
import { applyStep, recordUpstreamStatus } from "@/lib/orders/advance-order";
import { announceRequiredAction, requiredActionAppears } from "@/lib/orders/announce";
import { recoverIntents } from "@/lib/orders/recover-intents";
import { flagStuckOrders } from "@/lib/orders/stuck";
import { engineDeadlineMs, swapSnapshot } from "@/lib/orders/swap";
import { runPayoutInstructionsOnce } from "@/lib/payouts/run";
import { pruneRequestLog } from "@/lib/request-log/retention";
import { slot } from "@/lib/scope";
import { type PruneCursor, pruneWebhookMessages } from "@/lib/webhooks/retention";
import { runWebhooksOnce } from "@/lib/webhooks/sender";
import { runWithdrawalsOnce } from "@/lib/withdrawals/process";
import { registerReconcileGauges } from "@/lib/withdrawals/reconcile";
import { getPayoutSenders } from "@/lib/withdrawals/sender";

// The order worker. Any number of them may run against one database: an order is only
// worked on under a claim (a lease with an expiry, taken by a conditional UPDATE), so two
// workers never call the engine about the same order at once, and a worker that dies
// mid-call loses its claim when the lease runs out. A failed engine call is retried with
// exponential backoff; after WORKER_MAX_ATTEMPTS failures in a row the order fails with
// engine_error (its pending profit reversed).

const BATCH = 20;

/** Orders due now: a check is scheduled, or a waiting order passed its deadline. */
const dueAt = (now: Date) => ({
  payinAddress: { not: null },
  status: { in: OPEN_STATES },
  OR: [{ nextActionAt: { lte: now } }, { status: "waiting", expiresAt: { lte: now } }],
});

/** Claims up to `limit` due orders nobody holds for this pass (one lease); returns them and the lease's token. */
export async function claimDueOrders(db: Db, now: Date, limit = BATCH): Promise<{ token: string; orders: Order[] }> {
  const candidates = await db.order.findMany({
    where: { ...dueAt(now), AND: [unleased(now)] },
    orderBy: { nextActionAt: "asc" },
    take: limit,
    select: { id: true },
  });
  const ids = candidates.map((c) => c.id);
  // Conditional on still being due and unclaimed: of two workers racing for an order, one takes it.
  const { token } = await takeLease(db, "order", { ids, where: dueAt(now), now, ms: leaseMs() });
  if (!ids.length) return { token, orders: [] };
  // By id first: leaseToken has no index, and the candidates are the only orders the claim can hold.
  return { token, orders: await db.order.findMany({ where: { id: { in: ids }, leaseToken: token } }) };
}

const release = (db: Db, orderId: string, token: string, data: Prisma.OrderUncheckedUpdateManyInput = {}) =>
  releaseLease(db, "order", orderId, token, data);

/** After a failed engine call: retry later with backoff, or fail the order once the attempts are spent. */
async function recordFailure(db: Db, order: Order, token: string, err: unknown, at: Date): Promise<Order | null> {
  const cfg = getConfig();
  const attempts = order.attempts + 1;
  const lastError = (err instanceof Error ? err.message : String(err)).slice(0, 500);
  // An upstream swap goes on whether or not we can reach its provider: keep backing off.
  if (attempts >= cfg.WORKER_MAX_ATTEMPTS && !getEngine().upstream) {
    getLogger().error({ orderId: order.id, state: order.status, attempts, err }, "engine kept failing; the order fails with engine_error");
    const step: EngineStep = {
      to: "failed",
      reason: "engine_error",
      // Money that arrived goes back; the engine never said it was refunded, so the refund is pending.
      refund: order.amountReceived ? { amount: order.amountReceived, hash: null } : null,
    };
    return applyStep(db, order, step, at, { leaseToken: token, attempts, lastError });
  }
  const delay = retryDelayMs(attempts, { baseMs: cfg.WORKER_RETRY_BASE_MS, maxMs: cfg.WORKER_RETRY_MAX_MS });
  getLogger().warn({ orderId: order.id, state: order.status, attempts, retryInMs: delay, err }, "engine call failed; will retry");
  await release(db, order.id, token, { attempts, lastError, nextActionAt: new Date(at.getTime() + delay) });
  return null;
}

/** Called in the transaction of a change the pass makes to the order (the console's audit row of a sync). */
type OnChange = (tx: Tx, before: Order, after: Order) => Promise<void>;

/** One claimed order: expire it, or ask the engine once and apply what it says. */
async function advanceClaimed(db: Db, order: Order, token: string, now: Date, onChange?: OnChange): Promise<Order | null> {
  const inTransaction = onChange && ((tx: Tx, updated: Order) => onChange(tx, order, updated));
  // Upstream swaps expire on the provider's clock: the engine reads them first (a last-moment deposit counts).
  if (order.status === "waiting" && order.expiresAt <= now && !getEngine().upstream) {
    const r = await applyStep(db, order, { to: "failed", reason: "expired", refund: null }, now, { leaseToken: token, inTransaction });
    if (!r) await release(db, order.id, token);
    return r;
  }
  const engine = getEngine();
  const swap = swapSnapshot(order);
  // The sandbox's fault switch is per reseller; keyless orders are not reachable by it.
  const ctx = { scope: order.resellerId ? `reseller:${order.resellerId}` : `order:${order.id}` };
  let step: EngineStep | null;
  try {
    step = await callEngine(engineDeadlineMs(), ctx, (c) => engine.readSwap(swap, c));
  } catch (e) {
    return recordFailure(db, order, token, e, new Date(Math.max(now.getTime(), Date.now())));
  }
  const at = new Date(Math.max(now.getTime(), Date.now()));
  if (step?.to === null) {
    // No move: the provider's status or the reason the order waits changed.
    const data = {
      attempts: 0,
      lastError: null,
      upstreamStatus: step.upstream.status,
      stateReason: step.upstream.reason,
      nextActionAt: new Date(
        at.getTime() + engine.nextCheckDelayMs({ ...swap, upstream: swap.upstream && { ...swap.upstream, ...step.upstream } }),
      ),
    };
    const after = { ...order, ...data };
    // The provider's raw status is kept as received (UpstreamStatusEvent), and a reason that asks
    // something of the user (a hold, a refund without an address) is announced
    // (order.action_required), both in the change's transaction.
    await writeTransaction(db, async (tx) => {
      const r = await releaseLease(tx, "order", order.id, token, { ...data, updatedAt: at });
      if (r.count !== 1) return;
      await recordUpstreamStatus(tx, order, step.upstream, at);
      if (requiredActionAppears(order, after)) await announceRequiredAction(tx, order, { ...after, updatedAt: at }, { now: at });
      if (onChange) await onChange(tx, order, { ...after, updatedAt: at });
    });
    return null;
  }
  if (step) {
    const r = await applyStep(db, order, step, at, { leaseToken: token, inTransaction });
    if (!r) await release(db, order.id, token); // the order moved meanwhile (a sandbox deposit)
    return r;
  }
  await release(db, order.id, token, {
    attempts: 0,
    lastError: null,
    nextActionAt: new Date(at.getTime() + engine.nextCheckDelayMs(swap)),
  });
  return null;
}

/** How long an operator's sync waits for a worker's claim on the order to end. */
const SYNC_CLAIM_WAIT_MS = 10_000;

/**
 * The console's "sync now" (lib/console/orders/sync.ts): one open order read from its engine
 * and the answer applied, exactly as a worker's pass does, under the order's claim (waiting a
 * moment while a worker holds it); `onChange` runs in the transaction of any change the read
 * makes (a move, a new provider status). Returns "closed" (not open any more), "busy" (still claimed
 * by a worker after the wait) or "read", with the order after when it moved.
 */
export async function syncOrderNow(
  db: Db,
  opts: { orderId: string; onChange?: OnChange },
): Promise<{ outcome: "closed" | "busy" | "read"; moved: Order | null }> {
  const open = { payinAddress: { not: null }, status: { in: OPEN_STATES } };
  const deadline = Date.now() + SYNC_CLAIM_WAIT_MS;
  for (;;) {
    const now = clockNow();
    const { token, taken } = await takeLease(db, "order", { ids: [opts.orderId], where: open, now, ms: leaseMs() });
    if (taken === 1) {
      const order = await db.order.findFirst({ where: { id: opts.orderId, leaseToken: token } });
      if (!order) return { outcome: "closed", moved: null };
      return { outcome: "read", moved: await advanceClaimed(db, order, token, now, opts.onChange) };
    }
    const row = await db.order.findFirst({ where: { id: opts.orderId, ...open }, select: { id: true } });
    if (!row) return { outcome: "closed", moved: null };
    if (Date.now() > deadline) return { outcome: "busy", moved: null };
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * One pass: drop reservations whose opening request died, then claim the due orders and work
 * on them concurrently (each under its own lease). Returns how many orders changed state.
 */
/** When the current app's workers last ran each once-a-minute chore. */
const chores = slot(() => ({ stuckCheck: 0, quoteCleanup: 0, payouts: 0 }));
/**
 * The automatic payouts' pass, when its time has come (per app, by the clock of the pass): every
 * PAYOUTS_PASS_SECONDS (30 by default), not every poll, as a threshold's check prices the reseller's balances.
 */
async function payoutsWhenDue(db: Db, now: Date): Promise<void> {
  const done = chores();
  if (now.getTime() - done.payouts < getConfig().PAYOUTS_PASS_SECONDS * 1000) return;
  done.payouts = now.getTime();
  await runPayoutInstructionsOnce(db, { now });
}

/** How often the once-a-minute chores run: flagging stuck orders, dropping old quotes and old webhook messages. */
const CHORE_EVERY_MS = 60_000;

export async function runWorkerOnce(db: Db, now = new Date()): Promise<number> {
  // Upstream exchanges whose opening request died: adopted into their orders, or recorded (before the reservations go).
  if (getEngine().upstream) await recoverIntents(db, now);
  // A reservation is unopened; when its claim is long gone nobody waits for it any more.
  await db.order.deleteMany({ where: { payinAddress: null, leaseUntil: { lt: new Date(now.getTime() - leaseMs()) } } });
  const done = chores();
  if (getEngine().upstream && now.getTime() - done.stuckCheck >= CHORE_EVERY_MS) {
    done.stuckCheck = now.getTime();
    await flagStuckOrders(db, { now, afterMinutes: getConfig().PROVIDERS_STUCK_AFTER_MINUTES });
  }
  if (now.getTime() - done.quoteCleanup >= CHORE_EVERY_MS) {
    done.quoteCleanup = now.getTime();
    // Fixed-rate quotes are only looked up until their validUntil; keep a day for support questions.
    await db.rateQuote.deleteMany({ where: { validUntil: { lt: new Date(now.getTime() - 24 * 3600 * 1000) } } });
  }
  const { token, orders } = await claimDueOrders(db, now);
  const results = await Promise.all(
    orders.map((o) =>
      advanceClaimed(db, o, token, now).catch((e) => {
        getLogger().error({ err: e, orderId: o.id }, "worker step failed");
        return null;
      }),
    ),
  );
  return results.filter(Boolean).length;
}

export interface WorkerHandle {
  /** Stops polling and waits for the pass under way: its steps finish, their claims are released. */
  stop: () => Promise<void>;
  /** Whether a pass started recently (the loop is not stuck). */
  fresh: () => boolean;
  heartbeat: Heartbeat;
}

/** Polls until stopped. Runs inside the app process by default, or alone (dist/worker.mjs). */
export function startWorker(db: Db, opts: { pollMs: number; inProcess: boolean }): WorkerHandle {
  // The worker process serves /metrics on METRICS_PORT: its reconciliation gauges too.
  registerReconcileGauges();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const heartbeat = newHeartbeat({ inProcess: opts.inProcess });
  const started = Date.now();
  const tick = () => {
    // The app's clock (lib/clock.ts): a test may run a pass at any time it likes.
    const now = clockNow();
    running = heartbeat
      .beat(db, now)
      .catch((e) => getLogger().warn({ err: e }, "worker heartbeat not written"))
      .then(() =>
        Promise.all([
          runWorkerOnce(db, now).catch((e) => getLogger().error({ err: e }, "worker pass failed")),
          // Automatic payouts (lib/payouts/run.ts) queue their withdrawals first, then the withdrawals
          // (lib/withdrawals/process.ts) are paid by the same workers, each under its own lease, one
          // pass per payout chain (a chain whose node is down does not hold up the others).
          payoutsWhenDue(db, now)
            .catch((e) => getLogger().error({ err: e }, "automatic payouts pass failed"))
            .then(() =>
              Promise.all(
                getPayoutSenders().map((sender) =>
                  runWithdrawalsOnce(db, sender, { now }).catch((e) =>
                    getLogger().error({ err: e, chainId: sender.chainId }, "withdrawal pass failed"),
                  ),
                ),
              ),
            ),
        ]),
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, opts.pollMs);
      });
  };
  tick();
  // Webhook deliveries on their own loop: a slow endpoint never holds up the orders.
  let hookTimer: NodeJS.Timeout | undefined;
  let hooks: Promise<unknown> = Promise.resolve();
  const hookTick = () => {
    hooks = runWebhooksOnce(db, clockNow())
      .catch((e) => getLogger().error({ err: e }, "webhook pass failed"))
      .finally(() => {
        if (!stopped) hookTimer = setTimeout(hookTick, opts.pollMs);
      });
  };
  hookTick();
  // Old webhook messages are deleted on a loop of their own, once a minute and a few batches
  // at a time (lib/webhooks/retention.ts): a long backlog never holds up orders or deliveries.
  let pruneTimer: NodeJS.Timeout | undefined;
  let pruning: Promise<unknown> = Promise.resolve();
  let pruneAfter: PruneCursor | null = null;
  const pruneTick = () => {
    pruning = pruneWebhookMessages(db, { now: clockNow(), retentionDays: getConfig().WEBHOOK_RETENTION_DAYS, after: pruneAfter })
      .then((r) => {
        pruneAfter = r.after;
        if (r.deleted) getLogger().info({ deleted: r.deleted }, "old webhook messages deleted");
      })
      .catch((e) => getLogger().error({ err: e }, "webhook retention pass failed"))
      .finally(() => {
        if (!stopped) pruneTimer = setTimeout(pruneTick, CHORE_EVERY_MS);
      });
  };
  pruneTick();
  // Old request log rows (lib/request-log/retention.ts) likewise, on a loop of their own: once a
  // minute, or a second after a pass that left old rows behind, until the backlog is gone.
  let logPruneTimer: NodeJS.Timeout | undefined;
  let logPruning: Promise<unknown> = Promise.resolve();
  const logPruneTick = () => {
    let next = CHORE_EVERY_MS;
    logPruning = pruneRequestLog(db, { now: clockNow(), retentionDays: getConfig().REQUEST_LOG_DAYS })
      .then((r) => {
        if (r.more) next = 1000;
        if (r.deleted) getLogger().info({ deleted: r.deleted }, "old request log rows deleted");
      })
      .catch((e) => getLogger().error({ err: e }, "request log retention pass failed"))
      .finally(() => {
        if (!stopped) logPruneTimer = setTimeout(logPruneTick, next);
      });
  };
  logPruneTick();
  return {
    heartbeat,
    fresh: () => Date.now() - (heartbeat.lastPassAt || started) <= heartbeatStaleMs(),
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(hookTimer);
      clearTimeout(pruneTimer);
      clearTimeout(logPruneTimer);
      await Promise.all([running, hooks, pruning, logPruning]);
      await heartbeat.remove(db).catch(() => {});
    },
  };
}
