import "server-only";
import type { Db } from "@/lib/db/client";

// Webhook messages, their deliveries and their attempts would otherwise grow without end.
// A message is removed (its deliveries and attempts with it: ON DELETE CASCADE) once it is
// finished and older than WEBHOOK_RETENTION_DAYS: created before the cutoff, no delivery
// pending, and no attempt since the cutoff (a delivery that waited on a disabled endpoint and
// went out yesterday stays in the endpoint's log for the whole retention too). A message with
// a delivery still pending is never removed, however old.
//
// The work is done in small batches, each its own statements, so a huge backlog never holds a
// long transaction or lock. The old messages are walked in (createdAt, id) order from a cursor
// the caller keeps between passes: messages that must stay (pending on a disabled endpoint,
// say) are passed over once per walk instead of being read again by every pass.

export interface PruneCursor {
  createdAt: Date;
  id: string;
}

const DAY_MS = 24 * 3600 * 1000;

/** A delivery that keeps its message: still pending, or attempted since the cutoff. */
const keepsMessage = (cutoff: Date) => ({ OR: [{ status: "pending" }, { lastAttemptAt: { gte: cutoff } }] });

/**
 * Removes finished messages older than the retention, up to `batches` batches of `batchSize`
 * messages looked at, walking on from `after`. Returns how many were removed and where the
 * next pass goes on from (null: the walk reached the cutoff; the next one starts again at the
 * oldest message).
 */
export async function pruneWebhookMessages(
  db: Db,
  opts: { now: Date; retentionDays: number; after?: PruneCursor | null; batchSize?: number; batches?: number },
): Promise<{ deleted: number; after: PruneCursor | null }> {
  if (opts.retentionDays <= 0) return { deleted: 0, after: null }; // 0: keep everything
  const batchSize = opts.batchSize ?? 500;
  const cutoff = new Date(opts.now.getTime() - opts.retentionDays * DAY_MS);
  let after = opts.after ?? null;
  let deleted = 0;
  for (let i = 0; i < (opts.batches ?? 10); i++) {
    const page = await db.webhookMessage.findMany({
      where: {
        createdAt: { lt: cutoff },
        ...(after && { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] }),
      },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: batchSize,
      select: { id: true, createdAt: true },
    });
    if (!page.length) return { deleted, after: null };
    const ids = page.map((m) => m.id);
    const kept = await db.webhookDelivery.findMany({
      where: { messageId: { in: ids }, ...keepsMessage(cutoff) },
      select: { messageId: true },
    });
    const keep = new Set(kept.map((d) => d.messageId));
    const finished = ids.filter((id) => !keep.has(id));
    if (finished.length)
      deleted += (
        await db.webhookMessage.deleteMany({
          // Checked again in the statement that deletes: never a message with a pending delivery.
          where: { id: { in: finished }, deliveries: { none: keepsMessage(cutoff) } },
        })
      ).count;
    after = page[page.length - 1];
    if (page.length < batchSize) return { deleted, after: null };
  }
  return { deleted, after };
}
