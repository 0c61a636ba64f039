import "server-only";
import { getDb, isUniqueViolation } from "@/lib/db/client";
import { getLogger } from "@/lib/log";
import { type HourTally, type Pending, pendingCalls } from "@/lib/providers/call-stats";
import { currentScope, runInScope, slot } from "@/lib/scope";

// Merges each instance's provider call counts (call-stats.ts) into ProviderCallHour and keeps the
// failures' messages in ProviderCallError, every FLUSH_MS while the app runs (started with the
// app's server and its worker, lib/app/create-app.ts). A row is merged with a compare-and-set on
// its count, so instances flushing the same hour at once never lose each other's calls.

const FLUSH_MS = 10_000;
const KEEP_ERRORS_DAYS = 30;

const flusher = slot<{ timer: NodeJS.Timeout | null; flushing: Promise<void> | null }>(
  () => ({ timer: null, flushing: null }),
  (f) => {
    if (f.timer) clearInterval(f.timer);
    f.timer = null;
  },
);

/** Starts the app's periodic flush (once per app; stopped when the app closes). */
export function startProviderCallFlush(): void {
  const f = flusher();
  if (f.timer) return;
  const scope = currentScope();
  f.timer = setInterval(() => void runInScope(scope, () => flushProviderCalls()), FLUSH_MS).unref();
}

/** Merges what this instance noted into the database (every FLUSH_MS; tests call it to see the counts now). */
export function flushProviderCalls(): Promise<void> {
  const f = flusher();
  f.flushing ??= flush(pendingCalls()).finally(() => {
    f.flushing = null;
  });
  return f.flushing;
}

async function flush(p: Pending): Promise<void> {
  const tallies = [...p.tallies];
  const errors = p.errors;
  p.tallies = new Map();
  p.errors = [];
  if (!tallies.length && !errors.length) return;
  const db = getDb();
  try {
    for (const [key, t] of tallies) {
      const [provider, hourIso] = key.split(" ");
      await mergeHour(provider, new Date(hourIso), t);
    }
    if (errors.length) {
      await db.providerCallError.createMany({ data: errors });
      const cutoff = new Date(Date.now() - KEEP_ERRORS_DAYS * 86_400_000);
      await db.providerCallError.deleteMany({ where: { at: { lt: cutoff } } });
    }
  } catch (e) {
    // Statistics are worth less than the calls they count: logged, never retried into memory without bound.
    getLogger().warn({ err: String(e) }, "provider call statistics not saved");
  }
}

async function mergeHour(provider: string, hour: Date, t: HourTally): Promise<void> {
  const db = getDb();
  for (let attempt = 0; attempt < 5; attempt++) {
    const row = await db.providerCallHour.findUnique({ where: { provider_hour: { provider, hour } } });
    if (!row) {
      try {
        await db.providerCallHour.create({
          data: { provider, hour, calls: t.calls, failures: t.failures, buckets: JSON.stringify(t.buckets) },
        });
        return;
      } catch (e) {
        if (isUniqueViolation(e)) continue; // another instance made the hour's row first: merge into it
        throw e;
      }
    }
    const buckets = JSON.parse(row.buckets) as Record<string, number>;
    for (const [b, n] of Object.entries(t.buckets)) buckets[b] = (buckets[b] ?? 0) + n;
    // Compare-and-set on the count, which only grows: a merge that lost to another is read and tried again.
    const r = await db.providerCallHour.updateMany({
      where: { provider, hour, calls: row.calls },
      data: { calls: row.calls + t.calls, failures: row.failures + t.failures, buckets: JSON.stringify(buckets) },
    });
    if (r.count === 1) return;
  }
  throw new Error(`provider call statistics of ${provider}: five merges lost to other instances`);
}
