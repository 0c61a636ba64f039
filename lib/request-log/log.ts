import "server-only";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { getLogger } from "@/lib/log";
import { countRequestLogRows } from "@/lib/observability/metrics";
import { runInScope, type Scope, slot } from "@/lib/scope";
import { RequestLogBuffer, type RequestLogRow } from "./buffer";
import { writeRequestLogRows } from "./write";

// Each app's request log buffer (lib/scope.ts: made at the app's first keyed request, from its
// settings; flushed when the app closes, and by the graceful shutdown before the database
// closes). lib/http/route.ts adds a row per v1 request made with an API key.

/** How often a failing write is logged again (one line per batch would flood the log while the database is down). */
const WARN_EVERY_MS = 60_000;

const buffers = slot(
  (scope: Scope) => {
    const cfg = runInScope(scope, () => getConfig());
    // REQUEST_LOG_ENABLED=false: no buffer, nothing recorded (and the page stays empty).
    if (!cfg.REQUEST_LOG_ENABLED) return null;
    let lastWarn = Number.NEGATIVE_INFINITY;
    return new RequestLogBuffer({
      flushMs: cfg.REQUEST_LOG_FLUSH_MS,
      batch: cfg.REQUEST_LOG_BATCH,
      max: cfg.REQUEST_LOG_BUFFER_MAX,
      write: (rows) => runInScope(scope, () => writeRequestLogRows(getDb(), rows)),
      written: (n) => countRequestLogRows("written", n),
      dropped: (n, reason, err) => {
        countRequestLogRows(reason, n);
        if (!err || performance.now() - lastWarn < WARN_EVERY_MS) return;
        lastWarn = performance.now();
        try {
          runInScope(scope, () => getLogger().warn({ err, rows: n }, "request log: a batch was not written (dropped)"));
        } catch {
          // The app is closing and its logger is gone: the metric counted it.
        }
      },
    });
  },
  (buffer) => buffer?.close(),
);

/** On the request path: one row for the log, written later in a batch (`row` is called only when the log is on). */
export function logRequest(row: () => RequestLogRow): void {
  buffers()?.add(row());
}

/** Writes every row the current app's buffer holds (the graceful shutdown; tests that want the rows now). */
export async function flushRequestLog(scope?: Scope): Promise<void> {
  if (scope) {
    if (buffers.has(scope)) await buffers.of(scope)?.flush();
    return;
  }
  await buffers()?.flush();
}
