import "server-only";
import type { Db } from "@/lib/db/client";

// The request log's batches whose newest entry is older than REQUEST_LOG_DAYS are deleted by the
// workers' retention loop (lib/worker/run-worker.ts, beside the webhook messages'), a few at a
// time, each round its own two statements: the oldest ids by the index on "lastAt", then those
// batches by their key. A backlog (the first pass after an upgrade, or after the workers were
// down) never holds a long transaction or lock, and a pass does at most `batches` rounds. A
// batch spans at most a minute (lib/request-log/write.ts), so an entry is kept at most that
// long past its day.

const DAY_MS = 24 * 3600 * 1000;

/** Deletes the batches from before now - retentionDays, oldest first; how many entries it deleted, and whether some old batches are left. */
export async function pruneRequestLog(
  db: Db,
  opts: { now: Date; retentionDays: number; batchSize?: number; batches?: number },
): Promise<{ deleted: number; more: boolean }> {
  if (opts.retentionDays <= 0) return { deleted: 0, more: false }; // 0: keep everything
  const batchSize = opts.batchSize ?? 100;
  const cutoff = new Date(opts.now.getTime() - opts.retentionDays * DAY_MS);
  let deleted = 0;
  for (let i = 0; i < (opts.batches ?? 10); i++) {
    const old = await db.apiRequestBatch.findMany({
      where: { lastAt: { lt: cutoff } },
      orderBy: { lastAt: "asc" },
      take: batchSize,
      select: { id: true, count: true },
    });
    if (!old.length) return { deleted, more: false };
    await db.apiRequestBatch.deleteMany({ where: { id: { in: old.map((r) => r.id) } } });
    deleted += old.reduce((n, r) => n + r.count, 0);
    if (old.length < batchSize) return { deleted, more: false };
  }
  return { deleted, more: true };
}
