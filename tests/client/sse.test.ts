import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "@/packages/client/src/index";
import { readEvents, type SseEvent, SseParser } from "@/packages/client/src/sse";

// The client's Server-Sent Events parser (the WHATWG standard's rules), and followOrder over
// the order's event stream as its contract says (GET /exchange/{id}/events: `event: status`
// with ids, `event: end`, `: ping`, Last-Event-ID to resume, 429 before opening), served here
// by a small server of that contract, and its fallback to polling on Poll-After.

const parseAll = (chunks: string[]) => {
  const p = new SseParser();
  const events = chunks.flatMap((c) => p.push(c));
  return { events, parser: p };
};

const STREAM =
  '\uFEFF: ping\r\nretry: 1500\r\nevent: status\r\nid: 1\r\ndata: {"status":"waiting"}\r\n\r\n' +
  "data: line one\ndata:line two\ndata\n\n" +
  'event: end\rid: 2\rdata: {"status":"finished"}\r\r' +
  "id: bad\u0000id\nevent: ignored\n\n" +
  "unknown: field\ndata: tail not ended";

const EXPECTED: SseEvent[] = [
  { event: "status", id: "1", data: '{"status":"waiting"}' },
  { event: "message", id: "1", data: "line one\nline two\n" },
  { event: "end", id: "2", data: '{"status":"finished"}' },
];

describe("SseParser", () => {
  it("reads events, ids, retry, comments and every line ending, dropping an event not ended", () => {
    const { events, parser } = parseAll([STREAM]);
    expect(events).toEqual(EXPECTED);
    expect(parser.lastEventId).toBe("2");
    expect(parser.retryMs).toBe(1500);
    expect(parser.end()).toEqual([]);
  });

  it("reads the same events whatever the chunks (one character at a time, a CRLF split in two)", () => {
    expect(parseAll([...STREAM]).events).toEqual(EXPECTED);
    for (let cut = 1; cut < STREAM.length; cut++)
      expect(parseAll([STREAM.slice(0, cut), STREAM.slice(cut)]).events, `cut at ${cut}`).toEqual(EXPECTED);
  });

  it("reads a byte stream split inside a multi-byte character", async () => {
    const bytes = new TextEncoder().encode("data: é€\n\n");
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const b of bytes) c.enqueue(new Uint8Array([b]));
        c.close();
      },
    });
    const got: SseEvent[] = [];
    for await (const ev of readEvents(body, new SseParser())) got.push(ev);
    expect(got).toEqual([{ event: "message", id: "", data: "é€" }]);
  });
});

// A server of the events endpoint's contract, and of GET /exchange/{id}.
const ID = "0123456789abcdef01234567";
const STATES = ["waiting", "confirming", "exchanging", "sending", "finished"] as const;
const orderAt = (i: number) => ({ id: ID, status: STATES[i], updatedAt: `2026-01-01T00:00:0${i}.000Z` });

interface Contract {
  /** How the events endpoint answers the nth connection (0-based), given its Last-Event-ID. */
  events(n: number, lastEventId: string | undefined, res: http.ServerResponse): void;
  /** GET /exchange/{id}'s nth answer. */
  order?(n: number, res: http.ServerResponse): void;
}

let server: http.Server | null = null;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function serve(c: Contract) {
  const seen = { events: [] as (string | undefined)[], reads: [] as (string | undefined)[] };
  server = http.createServer((req, res) => {
    if (req.url === `/api/v1/exchange/${ID}/events`) {
      seen.events.push(req.headers["last-event-id"] as string | undefined);
      expect(req.headers.accept).toBe("text/event-stream");
      return c.events(seen.events.length - 1, req.headers["last-event-id"] as string | undefined, res);
    }
    if (req.url === `/api/v1/exchange/${ID}`) {
      seen.reads.push(req.headers["if-none-match"] as string | undefined);
      if (c.order) return c.order(seen.reads.length - 1, res);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(orderAt(4)));
      return;
    }
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "NOT_FOUND", message: "no" } }));
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
  const client = createClient({
    baseUrl: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/api/v1`,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
  });
  return { client, seen };
}

const status = (n: number, i: number) =>
  `event: status\nid: ${n}\ndata: ${JSON.stringify({ id: ID, status: STATES[i], at: orderAt(i).updatedAt })}\n\n`;
const sse = (res: http.ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });

describe("followOrder", () => {
  it("follows the event stream to its end, resuming with Last-Event-ID after a disconnection, then reads the order", async () => {
    const { client, seen } = await serve({
      events(n, _last, res) {
        sse(res);
        if (n === 0) {
          res.write(`retry: 5\n: ping\n\n${status(1, 0)}${status(2, 1)}`);
          setTimeout(() => res.destroy(), 20); // the connection drops
        } else {
          res.write(`: ping\n\n${status(3, 2)}${status(4, 3)}${status(5, 4)}`);
          res.end(`event: end\ndata: ${JSON.stringify({ id: ID, status: "finished" })}\n\n`);
        }
      },
    });
    const statuses: string[] = [];
    const transports: string[] = [];
    const final = await client.followOrder(ID, { onStatus: (s) => statuses.push(s), onTransport: (t) => transports.push(t) });
    expect(final).toEqual(orderAt(4));
    expect(statuses).toEqual([...STATES]);
    expect(transports).toEqual(["sse"]);
    expect(seen.events).toEqual([undefined, "2"]);
    expect(seen.reads).toHaveLength(1);
  });

  it("falls back to polling on Poll-After when the server has no stream (404) or refuses it (429), with If-None-Match", async () => {
    for (const refusal of [404, 429]) {
      const { client, seen } = await serve({
        events(_n, _last, res) {
          res
            .writeHead(refusal, { "content-type": "application/json", "retry-after": "0" })
            .end(JSON.stringify({ error: { code: refusal === 404 ? "NOT_FOUND" : "RATE_LIMITED", message: "no" } }));
        },
        order(n, res) {
          // waiting, then unchanged (304), then each state in turn
          const i = n === 0 ? 0 : Math.min(n - 1, 4);
          if (n === 1) return res.writeHead(304, { etag: '"e0"', "poll-after": "0" }).end();
          const headers: Record<string, string> = { "content-type": "application/json", etag: `"e${i}"` };
          if (i < 4) headers["poll-after"] = "0";
          res.writeHead(200, headers).end(JSON.stringify(orderAt(i)));
        },
      });
      const statuses: string[] = [];
      const transports: string[] = [];
      const final = await client.followOrder(ID, { onStatus: (s) => statuses.push(s), onTransport: (t) => transports.push(t) });
      expect(final).toEqual(orderAt(4));
      expect(statuses).toEqual([...STATES]);
      expect(transports).toEqual(["poll"]);
      expect(seen.reads.slice(0, 3)).toEqual([undefined, '"e0"', '"e0"']);
      expect(seen.events.length, String(refusal)).toBe(refusal === 429 ? 3 : 1); // a 429 is retried first
      await new Promise<void>((r) => server!.close(() => r()));
      server = null;
    }
  });

  it("polls only with transport poll, and stops on its signal", async () => {
    const { client, seen } = await serve({
      events() {
        throw new Error("not asked");
      },
      order(_n, res) {
        res.writeHead(200, { "content-type": "application/json", "poll-after": "60" }).end(JSON.stringify(orderAt(0)));
      },
    });
    const ctl = new AbortController();
    const statuses: string[] = [];
    const following = client.followOrder(ID, {
      transport: "poll",
      signal: ctl.signal,
      onStatus: (s) => {
        statuses.push(s);
        ctl.abort(new Error("stop"));
      },
    });
    await expect(following).rejects.toThrow("stop");
    expect(statuses).toEqual(["waiting"]);
    expect(seen.events).toEqual([]);
  });
});
