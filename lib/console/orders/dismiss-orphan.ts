import "server-only";
import type { Db } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { AppError } from "@/lib/errors";
import { type Actor, recordAudit } from "@/lib/operators/audit";

// An orphan upstream exchange handled by a person (issue 52, the queue): an operator looked it
// up at the provider (or gave up on it) and says so with a reason. The intent's row stays as
// the worker settled it (the CLI's upstream:orphans keeps listing it, the record of what
// happened); the dismissal is an audit row (upstream.dismiss), and the queue leaves out every
// orphan that has one.

export const DISMISS_ORPHAN = "upstream.dismiss";

/** The ids of the orphan exchanges an operator dismissed. */
export async function dismissedOrphanIds(db: Db): Promise<Set<string>> {
  const rows = await db.auditEvent.findMany({
    where: { targetType: "upstream_intent", action: DISMISS_ORPHAN },
    select: { targetId: true },
  });
  return new Set(rows.flatMap((r) => (r.targetId ? [r.targetId] : [])));
}

export async function dismissOrphan(opts: { db: Db; intentId: string; reason: string; by: Actor }): Promise<{ changed: boolean }> {
  const { db } = opts;
  return writeTransaction(db, async (tx) => {
    const intent = await tx.upstreamIntent.findUnique({ where: { id: opts.intentId } });
    if (!intent || !["abandoned", "unknown"].includes(intent.outcome ?? ""))
      throw new AppError("NOT_FOUND", "No orphan upstream exchange with this id.");
    const done = await tx.auditEvent.count({ where: { targetType: "upstream_intent", targetId: intent.id, action: DISMISS_ORPHAN } });
    if (done) return { changed: false };
    await recordAudit(tx, opts.by, {
      action: DISMISS_ORPHAN,
      targetType: "upstream_intent",
      targetId: intent.id,
      before: { provider: intent.provider, upstreamId: intent.upstreamId, externalId: intent.externalId, outcome: intent.outcome },
      reason: opts.reason,
    });
    return { changed: true };
  });
}
