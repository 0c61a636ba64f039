import "server-only";
import type { Db } from "@/lib/db/client";

// Request log rows older than REQUEST_LOG_DAYS are deleted by the workers' retention loop
// (lib/worker/run-worker.ts, beside the webhook messages'), in small batches, each its own two
// statements: the oldest ids by the index on "at", then those rows by their key. A backlog
// (the first pass after an upgrade, or after the workers were down) never holds a long
// transaction or lock, and a pass does at most `batches` batches.

const DAY_MS = 24 * 3600 * 1000;

/** Deletes rows from before now - retentionDays, oldest first; how many it deleted, and whether some old rows are left. */
export async function pruneRequestLog(
  db: Db,
  opts: { now: Date; retentionDays: number; batchSize?: number; batches?: number },
): Promise<{ deleted: number; more: boolean }> {
  if (opts.retentionDays <= 0) return { deleted: 0, more: false }; // 0: keep everything
  const batchSize = opts.batchSize ?? 1000;
  const cutoff = new Date(opts.now.getTime() - opts.retentionDays * DAY_MS);
  let deleted = 0;
  for (let i = 0; i < (opts.batches ?? 10); i++) {
    const old = await db.apiRequestLog.findMany({
      where: { at: { lt: cutoff } },
      orderBy: { at: "asc" },
      take: batchSize,
      select: { id: true },
    });
    if (!old.length) return { deleted, more: false };
    deleted += (await db.apiRequestLog.deleteMany({ where: { id: { in: old.map((r) => r.id) } } })).count;
    if (old.length < batchSize) return { deleted, more: false };
  }
  return { deleted, more: true };
}
