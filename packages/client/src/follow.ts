// followOrder: an order, followed to its final state. Preferred: the order's event stream,
// GET /exchange/{id}/events (text/event-stream: `event: status` with `id: <n>` and data
// {"id","status","at"}, then `event: end` with {"id","status"} once final; `: ping`
// heartbeats; Last-Event-ID resumes after a disconnection). Otherwise (transport "poll", or
// "auto" when the server has no stream: 404, 405, 406, an answer that is no event stream, or a
// 429 its retries did not get past) GET /exchange/{id}, as often as its Poll-After says, with
// If-None-Match so an unchanged order costs no body.
import { isApiError, ResellerApiError } from "./errors.js";
import { retryDelay, retryPolicy, sleep } from "./retry.js";
import { readEvents, SseParser } from "./sse.js";
import { isFinalState, type OrderState, type OrderStatus } from "./types.js";

type Transport = "sse" | "poll";

export interface FollowOptions {
  /** Called once per state the order is seen in, oldest first (a state passed between two polls is not seen). */
  onStatus?: (status: OrderState, info: { at: string | null }) => void;
  signal?: AbortSignal;
  /** "auto" (default): the stream, else polling; "sse": the stream only; "poll": polling only. */
  transport?: "auto" | Transport;
  /** Called with the transport in use (again if "auto" falls back to polling). */
  onTransport?: (transport: Transport) => void;
  /** The wait between polls when the server gives no Poll-After. Default 5000 ms. */
  pollIntervalMs?: number;
  /** Stream connections in a row that end before any event, before giving up on the stream. Default 5. */
  maxReconnects?: number;
}

/** What followOrder needs of the client (client.ts). */
interface Caller {
  send(
    method: "GET",
    path: string,
    init: { safe: boolean; signal?: AbortSignal; headers?: Record<string, string>; accept?: string },
  ): Promise<Response>;
  readExchange(
    id: string,
    opts: { etag?: string | null; signal?: AbortSignal },
  ): Promise<{ order: OrderStatus | null; etag: string | null; pollAfterSeconds: number | null }>;
  getExchange(id: string, opts: { signal?: AbortSignal }): Promise<OrderStatus>;
}

/** The stream's answers that mean "no stream here": the route is missing or refuses the type. */
const noStream = (e: ResellerApiError) =>
  e.status === 405 || e.status === 406 || (e.status === 404 && e.code !== "ORDER_NOT_FOUND") || e.status === 429;

export async function followOrder(client: Caller, id: string, opts: FollowOptions = {}): Promise<OrderStatus> {
  const mode = opts.transport ?? "auto";
  let last: OrderState | null = null;
  const report = (status: OrderState, at: string | null) => {
    if (status === last) return;
    last = status;
    opts.onStatus?.(status, { at });
  };
  if (mode !== "poll") {
    const ended = await stream(client, id, opts, mode, report);
    if (ended) {
      const order = await client.getExchange(id, { signal: opts.signal });
      report(order.status, order.updatedAt);
      return order;
    }
  }
  opts.onTransport?.("poll");
  return poll(client, id, opts, report);
}

/** Follows the stream to its end event: true; false when the server has none (auto mode only). */
async function stream(
  client: Caller,
  id: string,
  opts: FollowOptions,
  mode: "auto" | "sse",
  report: (s: OrderState, at: string | null) => void,
): Promise<boolean> {
  const parser = new SseParser();
  const maxReconnects = opts.maxReconnects ?? 5;
  let failures = 0;
  let announced = false;
  for (;;) {
    let res: Response;
    try {
      res = await client.send("GET", `/exchange/${encodeURIComponent(id)}/events`, {
        safe: true,
        signal: opts.signal,
        accept: "text/event-stream",
        headers: parser.lastEventId ? { "Last-Event-ID": parser.lastEventId } : {},
      });
    } catch (e) {
      if (mode === "auto" && isApiError(e) && noStream(e)) return false;
      throw e;
    }
    if (!(res.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream") || !res.body) {
      await res.body?.cancel();
      if (mode === "auto") return false;
      throw new ResellerApiError({
        status: res.status,
        code: "UNEXPECTED_RESPONSE",
        message: `GET /exchange/${id}/events answered ${res.headers.get("content-type")}, not an event stream`,
        requestId: res.headers.get("x-request-id"),
      });
    }
    if (!announced) {
      announced = true;
      opts.onTransport?.("sse");
    }
    let progressed = false;
    try {
      for await (const ev of readEvents(res.body, parser)) {
        if (ev.event !== "status" && ev.event !== "end") continue;
        progressed = true;
        const data = JSON.parse(ev.data) as { status: OrderState; at?: string };
        report(data.status, data.at ?? null);
        if (ev.event === "end") return true;
      }
    } catch (e) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (e instanceof SyntaxError) throw e; // a data line that is not JSON: not this API's stream
      // The connection dropped: resume from the last event id.
    }
    failures = progressed ? 0 : failures + 1;
    if (failures >= maxReconnects) {
      if (mode === "auto") return false;
      throw new Error(`the event stream of order ${id} ended ${failures} times in a row without an event`);
    }
    const wait = parser.retryMs ?? retryDelay(retryPolicy({ maxAttempts: failures + 1 }), { networkError: null }, failures, true) ?? 0;
    await sleep(wait, opts.signal);
  }
}

async function poll(
  client: Caller,
  id: string,
  opts: FollowOptions,
  report: (s: OrderState, at: string | null) => void,
): Promise<OrderStatus> {
  let order: OrderStatus | null = null;
  let etag: string | null = null;
  for (;;) {
    const r = await client.readExchange(id, { etag, signal: opts.signal });
    if (r.order) order = r.order;
    etag = r.etag;
    if (!order) throw new Error("unreachable: a first read answered 304");
    report(order.status, order.updatedAt);
    if (isFinalState(order.status)) return order;
    await sleep(r.pollAfterSeconds !== null ? r.pollAfterSeconds * 1000 : (opts.pollIntervalMs ?? 5000), opts.signal);
  }
}
