import "server-only";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { isFinal, type OrderState, orderStateOf } from "@/lib/domain/order-states";
import { AppError } from "@/lib/errors";
import type { Caller } from "@/lib/keys/api-keys";
import { type FeedEvent, orderEventFeed, stopOrderEventFeed } from "@/lib/orders/event-feed";
import { getOrderForCaller } from "@/lib/orders/get-order";
import { currentScope, runInScope, slot } from "@/lib/scope";
import type { ApiRequest } from "../request";
import type { ReplyStream, StreamOut } from "../respond";
import { parseWith, type RouteHandler } from "../route";
import { eventsQuery, lastEventIdParam } from "../schemas";

// GET /exchange/{id}/events (issue 53, live status; docs/api.md, Live status): the order's states
// as Server-Sent Events. Each state the order entered is one `status` event whose id is its
// OrderEvent row's id, so a client that reconnects with Last-Event-ID gets exactly the states
// after the last one it saw; a final state is followed by `end`, and the stream closes. The
// states come from the app's one reader of new order events (lib/orders/event-feed.ts), which
// sees every writer on any instance. Open streams are bounded per API key and per client IP
// (per instance), a key revoked or a reseller suspended meanwhile ends them at the next
// heartbeat, and the app's shutdown ends them (lib/http/shutdown.ts).

/** The reconnection delay the stream asks of its client (the `retry:` field). */
const RETRY_MS = 3000;
/** A 429's Retry-After: an open stream ends only when its order is final or its client goes. */
const RETRY_AFTER_SECONDS = 5;

type StateEvent = Pick<FeedEvent, "id" | "status" | "at">;

/** The app's open streams, how many each key and IP holds, and their one heartbeat timer. */
interface Streams {
  open: Set<EventStream>;
  perKey: Map<string, number>;
  perIp: Map<string, number>;
  heartbeat: NodeJS.Timeout | null;
  /** Shutting down: every stream ends, and a new one ends after its backlog. */
  closing: boolean;
}

const streams = slot<Streams>(
  () => ({ open: new Set(), perKey: new Map(), perIp: new Map(), heartbeat: null, closing: false }),
  (s) => endAll(s),
);

function endAll(s: Streams): void {
  s.closing = true;
  for (const stream of [...s.open]) stream.close();
}

/**
 * The graceful shutdown's part (lib/http/shutdown.ts): ends every open stream (their clients
 * reconnect, with Last-Event-ID, to an instance still serving) and stops the app's event reader.
 */
export async function endEventStreams(): Promise<void> {
  endAll(streams());
  await stopOrderEventFeed();
}

/** Streams open now on this app (tests). */
export function openEventStreams(): number {
  return streams().open.size;
}

/** Counts one more stream for the caller (its key, or its IP when keyless); 429 past the bound. Returns its release. */
function admit(s: Streams, caller: Caller | null, ip: string): () => void {
  const cfg = getConfig();
  const [counts, who, max] = caller ? [s.perKey, caller.apiKeyId, cfg.EVENTS_MAX_PER_KEY] : [s.perIp, ip, cfg.EVENTS_MAX_PER_IP];
  const held = counts.get(who) ?? 0;
  if (held >= max)
    throw new AppError(
      "RATE_LIMITED",
      `Too many open event streams: at most ${max} at once ${caller ? "per API key" : "per client IP without an API key"}. Close one first, or retry in ${RETRY_AFTER_SECONDS} s.`,
      { retryAfter: RETRY_AFTER_SECONDS, limit: max },
      { "Retry-After": String(RETRY_AFTER_SECONDS) },
    );
  counts.set(who, held + 1);
  let holding = true;
  return () => {
    if (!holding) return;
    holding = false;
    const left = (counts.get(who) ?? 1) - 1;
    if (left > 0) counts.set(who, left);
    else counts.delete(who);
  };
}

const frame = (id: number, orderId: string, e: StateEvent) =>
  `id: ${id}\nevent: status\ndata: ${JSON.stringify({ id: orderId, status: e.status, at: e.at.toISOString() })}\n\n`;

/** One open stream: the order's states not yet sent, as they come; its end; its release. */
class EventStream implements ReplyStream {
  private out: StreamOut | null = null;
  /** What was written before the head went out. */
  private queued: string[] = [];
  /** The feed's events that came before the backlog was read: applied after it. */
  private early: FeedEvent[] | null = [];
  /** The highest event id considered (sent, or passed over as a note in the same state). */
  private lastId = 0;
  private lastStatus: OrderState | null = null;
  /** No more events: the end was sent, or the stream is being closed. */
  private ending = false;
  private disposed = false;
  unwatch: () => void = () => {};

  constructor(
    private readonly orderId: string,
    private readonly registry: Streams,
    private readonly release: () => void,
    /** The API key that opened it (null: keyless): re-checked at each heartbeat. */
    readonly keyId: string | null = null,
  ) {
    registry.open.add(this);
    startHeartbeat(registry);
  }

  /** From the feed: applied now, or after the backlog when that is not read yet. */
  live(e: FeedEvent): void {
    if (this.early) this.early.push(e);
    else this.offer(e);
  }

  /**
   * The order's events as read (oldest first) and the Last-Event-ID given (null: none): without
   * one, the current state; with one, every state entered after it. Then the live ones held meanwhile.
   */
  backlog(events: StateEvent[], after: number | null): void {
    if (after === null) {
      const last = events[events.length - 1];
      if (last) {
        // The current state, at the time the order entered it (a note in the same state does not move it).
        let first = events.length - 1;
        while (first > 0 && events[first - 1].status === last.status) first--;
        this.lastId = last.id;
        this.lastStatus = last.status;
        this.send(frame(last.id, this.orderId, { ...last, at: events[first].at }));
      }
    } else {
      this.lastId = after;
      for (const e of events) if (e.id <= after) this.lastStatus = e.status;
      for (const e of events) this.offer(e);
    }
    const early = this.early ?? [];
    this.early = null;
    for (const e of early) this.offer(e);
    if (this.lastStatus && isFinal(this.lastStatus)) this.finish();
    else if (this.registry.closing) this.close();
  }

  /** An event of the order: sent when it is new to this stream and a new state; a final one ends the stream. */
  private offer(e: StateEvent): void {
    if (this.ending || e.id <= this.lastId) return;
    this.lastId = e.id;
    if (e.status === this.lastStatus) return;
    this.lastStatus = e.status;
    this.send(frame(e.id, this.orderId, e));
    if (isFinal(e.status)) this.finish();
  }

  private finish(): void {
    if (this.ending) return;
    this.send(`event: end\ndata: ${JSON.stringify({ id: this.orderId, status: this.lastStatus })}\n\n`);
    this.close();
  }

  private send(text: string): void {
    if (this.disposed) return;
    if (this.out) this.out.write(text);
    else this.queued.push(text);
  }

  /** The head is out: what is queued goes, and what comes after as it comes. */
  start(out: StreamOut): void {
    if (this.disposed) {
      out.end();
      return;
    }
    this.out = out;
    out.onClose(() => this.dispose());
    out.write(`retry: ${RETRY_MS}\n\n${this.queued.join("")}`);
    this.queued = [];
    if (this.ending) out.end();
  }

  /** No body will be written (the client went away first, HEAD). */
  cancel(): void {
    this.dispose();
  }

  /** Ends the stream (now, or once its head is out). */
  close(): void {
    this.ending = true;
    this.out?.end();
  }

  ping(): void {
    if (!this.ending) this.out?.write(": ping\n\n");
  }

  /** Over, however it ended: its count released, its watch ended. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.ending = true;
    this.release();
    this.unwatch();
    this.registry.open.delete(this);
    if (!this.registry.open.size && this.registry.heartbeat) {
      clearInterval(this.registry.heartbeat);
      this.registry.heartbeat = null;
    }
  }
}

/** One timer per app pings every open stream every EVENTS_HEARTBEAT_SECONDS, while any is open. */
function startHeartbeat(s: Streams): void {
  if (s.heartbeat) return;
  const scope = currentScope();
  s.heartbeat = setInterval(
    () =>
      runInScope(scope, () => {
        for (const stream of s.open) stream.ping();
        void endRevoked(s).catch(() => {
          // The database is away: the next heartbeat asks again.
        });
      }),
    getConfig().EVENTS_HEARTBEAT_SECONDS * 1000,
  );
  s.heartbeat.unref();
}

/**
 * A stream lasts as long as its order is open, so its key is asked about again at each
 * heartbeat (one query for every keyed stream of the app): a key revoked, or a reseller
 * suspended, since the stream opened ends it. Its client's reconnection then gets the 401 or
 * 403 that any other call would.
 */
async function endRevoked(s: Streams): Promise<void> {
  const keyIds = [...new Set([...s.open].flatMap((stream) => (stream.keyId ? [stream.keyId] : [])))];
  if (!keyIds.length) return;
  const live = await getDb().apiKey.findMany({
    where: { id: { in: keyIds }, revokedAt: null, reseller: { suspendedAt: null } },
    select: { id: true },
  });
  const ok = new Set(live.map((k) => k.id));
  for (const stream of [...s.open]) if (stream.keyId && !ok.has(stream.keyId)) stream.close();
}

/** Last-Event-ID (the header a reconnecting EventSource sends), else ?lastEventId=; null: neither. */
function lastEventIdOf(req: ApiRequest): number | null {
  const header = req.header("last-event-id");
  if (header !== null) return parseWith(lastEventIdParam, header.trim());
  return parseWith(eventsQuery, { lastEventId: req.query.get("lastEventId") ?? undefined }).lastEventId ?? null;
}

/** The order's states as Server-Sent Events, from where the client left off, until its final state. */
export const getExchangeEvents: RouteHandler = async ({ req, env, caller }) => {
  const after = lastEventIdOf(req);
  const registry = streams();
  const release = admit(registry, caller, env.ip);
  const orderId = (env.params.id ?? "").toLowerCase();
  const stream = new EventStream(orderId, registry, release, caller?.apiKeyId ?? null);
  try {
    // Watched before the order is read: whatever commits after the read reaches the stream.
    if (!registry.closing) stream.unwatch = await orderEventFeed().watch(orderId, (e) => stream.live(e));
    const order = await getOrderForCaller(getDb(), { orderId, caller });
    stream.backlog(
      order.events.map((e) => ({ id: e.id, status: orderStateOf(e.status), at: e.at })),
      after,
    );
  } catch (e) {
    stream.dispose();
    throw e;
  }
  return {
    body: "text/event-stream; charset=utf-8",
    stream,
    headers: { "Cache-Control": "no-store", "X-Accel-Buffering": "no" },
  };
};
