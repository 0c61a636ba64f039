import { afterEach, describe, expect, it, vi } from "vitest";
import { RequestLogBuffer, type RequestLogRow } from "@/lib/request-log/buffer";

// The request log's batcher with a writer that records what it is given: rows are written in
// batches of at most REQUEST_LOG_BATCH, after REQUEST_LOG_FLUSH_MS or at once when a batch is
// full, one write at a time; past the cap a row is dropped and counted; flush() writes all.
// Fake timers: the test moves the clock, it does not wait for it.

const row = (i: number): RequestLogRow => ({
  resellerId: "r",
  keyId: "k",
  at: 0,
  method: "GET",
  route: "/api/v1/currencies",
  path: "/api/v1/currencies",
  status: 200,
  errorCode: null,
  latencyMs: i,
  requestId: `req-${i}`,
});

function setup(opts: { flushMs?: number; batch?: number; max?: number; fail?: () => boolean } = {}) {
  const batches: number[][] = [];
  const dropped: Record<string, number> = {};
  let written = 0;
  let release: (() => void) | null = null;
  let hold = false;
  const buffer = new RequestLogBuffer({
    flushMs: opts.flushMs ?? 1000,
    batch: opts.batch ?? 3,
    max: opts.max ?? 100,
    write: async (rows) => {
      if (hold) await new Promise<void>((r) => (release = r));
      if (opts.fail?.()) throw new Error("database down");
      batches.push(rows.map((r) => r.latencyMs));
    },
    written: (n) => (written += n),
    dropped: (n, reason) => (dropped[reason] = (dropped[reason] ?? 0) + n),
  });
  return {
    buffer,
    batches,
    dropped,
    written: () => written,
    hold: () => (hold = true),
    release: () => {
      hold = false;
      release?.();
    },
  };
}

afterEach(() => vi.useRealTimers());

describe("the request log's buffer", () => {
  it("writes nothing during the request; a partial batch goes out REQUEST_LOG_FLUSH_MS after its first row", async () => {
    vi.useFakeTimers();
    const t = setup({ flushMs: 1000, batch: 10 });
    t.buffer.add(row(1));
    t.buffer.add(row(2));
    expect(t.batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(999);
    expect(t.batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.batches).toEqual([[1, 2]]);
    expect(t.written()).toBe(2);
    // The next row starts a new wait.
    t.buffer.add(row(3));
    await vi.advanceTimersByTimeAsync(999);
    expect(t.batches).toEqual([[1, 2]]);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.batches).toEqual([[1, 2], [3]]);
  });

  it("a full batch goes out on the next turn, without waiting for the timer, in batches of at most REQUEST_LOG_BATCH", async () => {
    // Real timers (an hour's flush interval never comes): the batches go out on the loop's next turns.
    const turn = () => new Promise((r) => setImmediate(r));
    const t = setup({ flushMs: 3_600_000, batch: 3 });
    for (let i = 1; i <= 7; i++) t.buffer.add(row(i));
    // Not within the request that filled it.
    expect(t.batches).toEqual([]);
    for (let i = 0; i < 5; i++) await turn();
    expect(t.batches).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    // The last, partial batch waits for its timer (or a flush).
    expect(t.buffer.size).toBe(1);
    await t.buffer.close();
    expect(t.batches.at(-1)).toEqual([7]);
  });

  it("one write at a time: rows added while a batch is being written go in the next", async () => {
    vi.useFakeTimers();
    const t = setup({ flushMs: 100, batch: 2 });
    t.hold();
    t.buffer.add(row(1));
    t.buffer.add(row(2));
    await vi.advanceTimersByTimeAsync(0);
    t.buffer.add(row(3));
    t.buffer.add(row(4));
    t.buffer.add(row(5));
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.batches).toEqual([]);
    t.release();
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(t.batches.slice(0, 2)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    await vi.advanceTimersByTimeAsync(100);
    expect(t.batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it("flush() (the shutdown) writes every waiting row at once, whatever the timer", async () => {
    const t = setup({ flushMs: 3_600_000, batch: 4 });
    for (let i = 1; i <= 10; i++) t.buffer.add(row(i));
    await t.buffer.close();
    expect(t.batches.flat()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(t.batches.every((b) => b.length <= 4)).toBe(true);
    expect(t.buffer.size).toBe(0);
    // Closed: a late row is dropped, not kept waiting for a write that never comes.
    expect(t.buffer.add(row(11))).toBe(false);
    expect(t.dropped).toEqual({ buffer_full: 1 });
  });

  it("holds at most REQUEST_LOG_BUFFER_MAX rows: past it, rows are dropped and counted", async () => {
    vi.useFakeTimers();
    const t = setup({ flushMs: 1000, batch: 100, max: 5 });
    const taken = Array.from({ length: 8 }, (_, i) => t.buffer.add(row(i + 1)));
    expect(taken).toEqual([true, true, true, true, true, false, false, false]);
    expect(t.buffer.size).toBe(5);
    expect(t.dropped).toEqual({ buffer_full: 3 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.batches).toEqual([[1, 2, 3, 4, 5]]);
    // Room again once written.
    expect(t.buffer.add(row(9))).toBe(true);
  });

  it("a failed write drops its batch (counted), and the next batches are written", async () => {
    vi.useFakeTimers();
    let down = true;
    const t = setup({ flushMs: 10, batch: 2, fail: () => down });
    t.buffer.add(row(1));
    t.buffer.add(row(2));
    await vi.advanceTimersByTimeAsync(0);
    expect(t.dropped).toEqual({ write_failed: 2 });
    expect(t.buffer.size).toBe(0);
    down = false;
    t.buffer.add(row(3));
    await vi.advanceTimersByTimeAsync(10);
    expect(t.batches).toEqual([[3]]);
    expect(t.written()).toBe(1);
  });
});
