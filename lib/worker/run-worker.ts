import "server-only";
import type { Db } from "@/lib/db/client";
import { getEngine } from "@/lib/engine";
import { getLogger } from "@/lib/log";
import { applyStep } from "@/lib/orders/advance-order";

const BATCH = 100;

/**
 * One pass: expire waiting orders past their deadline, then ask the engine about every
 * order whose next check is due. Safe with several workers: applyStep only moves an order
 * from the state it was read in, so a step another worker already took is a no-op.
 */
export async function runWorkerOnce(db: Db, now = new Date()): Promise<number> {
  const engine = getEngine();
  let moved = 0;
  const expired = await db.order.findMany({ where: { status: "waiting", expiresAt: { lte: now } }, take: BATCH });
  for (const o of expired) if (await applyStep(db, o, { to: "failed", reason: "expired", refund: null }, now)) moved++;

  const due = await db.order.findMany({
    where: { status: { in: ["waiting", "confirming", "exchanging", "sending"] }, nextActionAt: { lte: now } },
    orderBy: { nextActionAt: "asc" },
    take: BATCH,
  });
  for (const o of due) {
    try {
      const step = await engine.step(o, now);
      if (step && (await applyStep(db, o, step, now))) moved++;
    } catch (e) {
      getLogger().error({ err: e, orderId: o.id }, "worker step failed");
    }
  }
  return moved;
}

/** Polls until stopped. Runs inside the app process by default, or alone (dist/worker.mjs). */
export function startWorker(db: Db, opts: { pollMs: number }): { stop: () => Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = runWorkerOnce(db)
      .catch((e) => getLogger().error({ err: e }, "worker pass failed"))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, opts.pollMs);
      });
  };
  tick();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
