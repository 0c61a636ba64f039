import "server-only";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { type OrderState, orderStateOf } from "@/lib/domain/order-states";
import { getLogger } from "@/lib/log";
import { currentScope, runInScope, type Scope, slot } from "@/lib/scope";

// The app's one reader of new order events (issue 53, live status): the OrderEvent rows past the
// last one it read, every EVENTS_POLL_MS, only while something watches (an open event stream,
// lib/http/v1/events.ts), handed to the watchers of each row's order. One query per app and
// interval however many streams are open; and since it reads the table, it sees every writer:
// this process's worker, another instance's, `npm run worker`, the console, the CLI.
//
// Ids are handed out when a row is inserted, not when its transaction commits, so on PostgreSQL
// a row can become visible after rows with higher ids (two transactions committing in the other
// order). An id the reader skipped over is kept as a gap and asked for again on every read,
// until it appears or GAP_WAIT_MS has passed (a rolled-back insert leaves a gap for ever). An
// order's own events are written one after the other (each step by the holder of the order's
// lease, after the step before it committed), so they appear in id order: a watcher drops any
// id it has already seen, and never sees an order's events out of order.

/** An order's state change as the feed hands it over: one OrderEvent row. */
export interface FeedEvent {
  id: number;
  orderId: string;
  status: OrderState;
  at: Date;
}

type Push = (e: FeedEvent) => void;

/** Rows read per query; a full batch is followed at once by the next. */
const BATCH = 500;
/** How long an id skipped over is waited for (longer than any transaction that writes an event). */
const GAP_WAIT_MS = 60_000;
/** Ids waited for at most; past this the oldest are given up. */
const MAX_GAPS = 1_000;
/** At its start, the reader also waits for the ids missing among this many below the newest (transactions still open then). */
const START_WINDOW = 1_000;

class OrderEventTail {
  private readonly watchers = new Map<string, Set<Push>>();
  private size = 0;
  /** The highest id read. */
  private after = 0;
  /** Ids below `after` not seen yet, each with the time (performance.now()) it stops being waited for. */
  private readonly gaps = new Map<number, number>();
  /** Set while the reader runs (from the first watcher to the last); resolves once it knows where to start. */
  private started: Promise<void> | null = null;
  /** Which run a poll belongs to: a poll of a stopped run neither dispatches nor schedules another. */
  private run = 0;
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly scope: Scope) {}

  /**
   * Watches one order's new events; resolves once the reader knows where it starts, so every
   * event committed after that is handed to `push` (an event committed just before may come
   * too: the watcher drops ids it has). Returns what ends the watch.
   */
  async watch(orderId: string, push: Push): Promise<() => void> {
    if (this.closed) throw new Error("the order event feed is closed");
    const set = this.watchers.get(orderId) ?? new Set<Push>();
    this.watchers.set(orderId, set);
    set.add(push);
    this.size++;
    let watching = true;
    const unwatch = () => {
      if (!watching) return;
      watching = false;
      set.delete(push);
      if (!set.size) this.watchers.delete(orderId);
      if (--this.size === 0) this.halt();
    };
    try {
      await this.start();
    } catch (e) {
      unwatch();
      throw e;
    }
    return unwatch;
  }

  /** How many watches are open (tests, metrics). */
  get watching(): number {
    return this.size;
  }

  private start(): Promise<void> {
    if (this.started) return this.started;
    const run = ++this.run;
    const started = (async () => {
      const db = getDb();
      const top = (await db.orderEvent.aggregate({ _max: { id: true } }))._max.id ?? 0;
      const recent = await db.orderEvent.findMany({ where: { id: { gt: top - START_WINDOW, lte: top } }, select: { id: true } });
      if (run !== this.run) return;
      this.after = top;
      this.gaps.clear();
      const seen = new Set(recent.map((r) => r.id));
      const until = performance.now() + GAP_WAIT_MS;
      for (let id = Math.max(1, top - START_WINDOW + 1); id <= top; id++) if (!seen.has(id)) this.gaps.set(id, until);
      this.schedule(run);
    })();
    this.started = started;
    started.catch(() => {
      if (this.started === started) this.started = null;
    });
    return started;
  }

  /** No watcher left: the reader stops (its next start reads where the table is then). */
  private halt(): void {
    this.run++;
    this.started = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(run: number): void {
    if (run !== this.run || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const polling: Promise<void> = runInScope(this.scope, () => this.poll(run))
        .catch((e: unknown) => getLogger().warn({ err: String(e) }, "order event feed: read failed; trying again"))
        .finally(() => {
          if (this.polling === polling) this.polling = null;
          this.schedule(run);
        });
      this.polling = polling;
    }, getConfig().EVENTS_POLL_MS);
    this.timer.unref();
  }

  /** One read (or more, while batches come full): new rows and awaited gaps, in id order, to their watchers. */
  private async poll(run: number): Promise<void> {
    const db = getDb();
    for (;;) {
      const now = performance.now();
      for (const [id, until] of this.gaps) if (until <= now) this.gaps.delete(id);
      const gapIds = [...this.gaps.keys()];
      const newer = { id: { gt: this.after } };
      const rows = await db.orderEvent.findMany({
        where: gapIds.length ? { OR: [newer, { id: { in: gapIds } }] } : newer,
        orderBy: { id: "asc" },
        take: BATCH,
        select: { id: true, orderId: true, status: true, at: true },
      });
      if (run !== this.run) return;
      let prev = this.after;
      for (const r of rows) {
        if (r.id <= this.after) {
          this.gaps.delete(r.id);
          continue;
        }
        // Ids skipped over between two rows read: waited for (at most MAX_GAPS, the newest).
        const until = performance.now() + GAP_WAIT_MS;
        for (let id = Math.max(prev + 1, r.id - MAX_GAPS); id < r.id; id++) this.gaps.set(id, until);
        prev = r.id;
      }
      this.after = prev;
      for (const id of this.gaps.keys()) {
        if (this.gaps.size <= MAX_GAPS) break;
        this.gaps.delete(id);
      }
      for (const r of rows) {
        const set = this.watchers.get(r.orderId);
        if (!set) continue;
        const e: FeedEvent = { id: r.id, orderId: r.orderId, status: orderStateOf(r.status), at: r.at };
        for (const push of [...set]) push(e);
      }
      if (rows.length < BATCH) return;
    }
  }

  /** The app closes: no reading any more, no watcher kept; waits for a read in progress. */
  async close(): Promise<void> {
    this.closed = true;
    this.halt();
    this.watchers.clear();
    this.size = 0;
    await this.polling;
  }
}

const feed = slot(
  (scope) => new OrderEventTail(scope),
  (f) => f.close(),
);

/** The current app's feed of new order events. */
export function orderEventFeed(): OrderEventTail {
  return feed.of(currentScope());
}

/** Stops the current app's feed, if it has one (graceful shutdown, before the database closes). */
export async function stopOrderEventFeed(): Promise<void> {
  const scope = currentScope();
  if (feed.has(scope)) await feed.of(scope).close();
}
