import "server-only";

// The request log's batcher: rows are added on the request path (a push, nothing else) and
// written off it, in batches: a batch goes out REQUEST_LOG_FLUSH_MS after the first row of an
// empty buffer arrived, or as soon as REQUEST_LOG_BATCH rows wait, one write at a time. Memory
// is bounded: past REQUEST_LOG_BUFFER_MAX waiting rows a new row is dropped and counted, never
// queued (a database that is down or slow costs log rows, not the process). A failed write
// drops its batch (counted) rather than retry it into memory. flush() writes everything that
// waits (the graceful shutdown, lib/http/shutdown.ts, and the app's close).

/** One request, as the log keeps it (an entry of an ApiRequestBatch row, lib/request-log/entries.ts). */
export interface RequestLogRow {
  resellerId: string;
  keyId: string;
  /** When the request arrived, epoch milliseconds (a number: no Date kept per request while it waits). */
  at: number;
  method: string;
  /** The route's template (/api/v1/exchange/:id), or "unmatched". */
  route: string;
  /** The path as called, masked (lib/request-log/mask.ts). */
  path: string;
  status: number;
  errorCode: string | null;
  latencyMs: number;
  requestId: string;
}

export type DropReason = "buffer_full" | "write_failed";

export interface BufferOptions {
  flushMs: number;
  batch: number;
  max: number;
  /** Writes one batch (at most `batch` rows). */
  write: (rows: RequestLogRow[]) => Promise<void>;
  /** Rows not logged, and why. */
  dropped?: (n: number, reason: DropReason, err?: unknown) => void;
  /** Rows written. */
  written?: (n: number) => void;
}

export class RequestLogBuffer {
  private rows: RequestLogRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private kicked = false;
  private writing: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly opts: BufferOptions) {}

  /** Rows waiting to be written. */
  get size(): number {
    return this.rows.length;
  }

  /** On the request path: queues the row (false: dropped, the buffer is full or closed). */
  add(row: RequestLogRow): boolean {
    if (this.closed || this.rows.length >= this.opts.max) {
      this.opts.dropped?.(1, "buffer_full");
      return false;
    }
    this.rows.push(row);
    if (this.rows.length >= this.opts.batch) this.soon();
    else this.timer ??= setTimeout(this.onTimer, this.opts.flushMs).unref();
    return true;
  }

  /** A full batch waits: written after this turn (never within the request that filled it). */
  private soon() {
    if (this.kicked || this.writing) return;
    this.kicked = true;
    setImmediate(() => {
      this.kicked = false;
      this.pump();
    });
  }

  private onTimer = () => {
    this.timer = null;
    this.pump();
  };

  /** Writes one batch unless one is on its way; after it, schedules what still waits. */
  private pump() {
    if (this.writing || !this.rows.length) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.rows.splice(0, this.opts.batch);
    this.writing = this.writeBatch(batch).finally(() => {
      this.writing = null;
      if (this.rows.length >= this.opts.batch) this.soon();
      else if (this.rows.length) this.timer ??= setTimeout(this.onTimer, this.opts.flushMs).unref();
    });
  }

  private async writeBatch(batch: RequestLogRow[]) {
    try {
      await this.opts.write(batch);
      this.opts.written?.(batch.length);
    } catch (e) {
      this.opts.dropped?.(batch.length, "write_failed", e);
    }
  }

  /** Writes every row that waits now, batch after batch, and resolves when they are written (or dropped). */
  async flush(): Promise<void> {
    while (this.writing || this.rows.length) {
      if (this.writing) await this.writing;
      else this.pump();
    }
  }

  /** Flushes, then takes no more rows (the app closes). */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
