import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { LosslessNumber, stringify } from "lossless-json";

// The part every fake provider shares: an HTTP server on a free port that records every
// request it receives (method, path, query, headers, raw body), can be told to fail the next
// requests (429, 500, a hang longer than the client's timeout), and can be killed and
// brought back on the same port, as a provider's outage would look to the engine.

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  body: any;
}

/**
 * How a request fails: an HTTP error, a late answer (hangMs; heldUntil: once the test settles
 * the promise, however long that is), or any reply given verbatim.
 */
export type Fault =
  | { status: 429 | 500 | 503 }
  | { hangMs: number }
  | { heldUntil: Promise<unknown> }
  | { reply: Reply }
  /**
   * The provider does the work (an exchange is created) and its answer is held until the
   * promise settles, as an answer still on its way when the client dies; `replied` is called
   * once the answer has been written.
   */
  | { answerHeldUntil: Promise<unknown>; replied?: () => void };

export interface Reply {
  status: number;
  body: unknown;
}

export abstract class FakeServer {
  readonly requests: RecordedRequest[] = [];
  port = 0;
  private server: http.Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly faults: { fault: Fault; match?: (r: RecordedRequest) => boolean }[] = [];

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  protected abstract handle(req: RecordedRequest): Reply | Promise<Reply>;

  async start(): Promise<this> {
    const server = http.createServer((req, res) => void this.onRequest(req, res));
    // An idle kept-alive connection is never closed by this side (kill() cuts them all): closed
    // after Node's 5 s, the client could send its next request on it just as it went, and read
    // "unreachable" (ECONNRESET). Its own idle timer is a little shorter than the 5 s, but on a
    // loaded machine the test process reached that timer late; a provider test's own idle gaps
    // between requests are exactly that long there.
    server.keepAliveTimeout = 0;
    server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Kills the server: open connections are cut and new ones refused, until `start()` again (same port). */
  async kill(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    for (const sock of this.sockets) sock.destroy();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** The next requests (those `match` accepts, default all) fail this way, once each. */
  failNext(fault: Fault, times = 1, match?: (r: RecordedRequest) => boolean) {
    for (let i = 0; i < times; i++) this.faults.push({ fault, match });
  }

  clearFaults() {
    this.faults.length = 0;
  }

  /** Requests whose path starts with `prefix` (and that `match` accepts). */
  requestsTo(prefix: string, match?: (r: RecordedRequest) => boolean): RecordedRequest[] {
    return this.requests.filter((r) => r.path.startsWith(prefix) && (!match || match(r)));
  }

  private async onRequest(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawBody = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://fake");
    let body: unknown = null;
    try {
      body = rawBody ? JSON.parse(rawBody) : null;
    } catch {
      body = rawBody;
    }
    const rec: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      rawBody,
      body,
    };
    this.requests.push(rec);
    const i = this.faults.findIndex((f) => !f.match || f.match(rec));
    let reply: Reply;
    let replied: (() => void) | undefined;
    if (i >= 0) {
      const [{ fault }] = this.faults.splice(i, 1);
      if ("answerHeldUntil" in fault) {
        reply = await this.handle(rec);
        await fault.answerHeldUntil;
        replied = fault.replied;
      } else if ("hangMs" in fault || "heldUntil" in fault) {
        // A slow provider: nothing for that long, then its normal answer (if the client still waits).
        await ("hangMs" in fault ? new Promise((r) => setTimeout(r, fault.hangMs)) : fault.heldUntil);
        reply = await this.handle(rec);
      } else reply = await faultReply(fault);
    } else {
      try {
        reply = await this.handle(rec);
      } catch (e) {
        reply = { status: 500, body: { error: String(e) } };
      }
    }
    if (res.destroyed) return;
    const text = stringify(reply.body) ?? "";
    res.writeHead(reply.status, { "content-type": "application/json" });
    res.end(text, () => replied?.());
  }
}

/** An exact decimal that the reply writes as a JSON number. */
export const jsonNumber = (decimal: { toFixed(): string } | string) =>
  new LosslessNumber(typeof decimal === "string" ? decimal : decimal.toFixed());

/**
 * A scripted sequence of what an order reads as: each read takes the next step, the last one
 * repeats. A step is a status string, a status with fields to put in the answer, or a fault
 * (that read fails: 429, 500, or no answer in time).
 */
export type ScriptStep = string | { status: string; [field: string]: unknown } | { fault: Fault };

export class Script {
  private i = 0;
  private readonly steps: ScriptStep[];
  constructor(steps: ScriptStep[]) {
    if (!steps.length) throw new Error("empty script");
    this.steps = [...steps];
  }
  next(): ScriptStep {
    const s = this.steps[Math.min(this.i, this.steps.length - 1)];
    this.i++;
    return s;
  }
  /**
   * Moves a script that holds on its last step on: the next read takes the first of these steps.
   * For a state that must not change by itself while the test does something else.
   */
  continueWith(steps: ScriptStep[]) {
    this.i = Math.min(this.i, this.steps.length);
    this.steps.push(...steps);
  }
  /** How many reads the script has answered. */
  get reads(): number {
    return this.i;
  }
}

export const isFault = (s: ScriptStep): s is { fault: Fault } => typeof s === "object" && "fault" in s;
export const stepStatus = (s: Exclude<ScriptStep, { fault: Fault }>) => (typeof s === "string" ? s : s.status);
export const stepFields = (s: Exclude<ScriptStep, { fault: Fault }>): Record<string, unknown> => {
  if (typeof s === "string") return {};
  const { status: _status, ...rest } = s;
  return rest;
};

/** Replies with a fault the way the server does for `failNext`. */
export async function faultReply(fault: Fault): Promise<Reply> {
  if ("reply" in fault) return fault.reply;
  if ("answerHeldUntil" in fault) {
    // In a script (no work to do first): a late answer.
    await fault.answerHeldUntil;
    return { status: 504, body: { error: "late" } };
  }
  if ("hangMs" in fault || "heldUntil" in fault) {
    await ("hangMs" in fault ? new Promise((r) => setTimeout(r, fault.hangMs)) : fault.heldUntil);
    return { status: 504, body: { error: "late" } };
  }
  return { status: fault.status, body: fault.status === 429 ? { error: { message: "Rate limit exceeded" } } : { error: "internal" } };
}

let seq = 0;
export const fakeId = (prefix: string) => `${prefix}${(++seq).toString(36)}${Math.random().toString(36).slice(2, 8)}`;
export const fakeHash = () => Array.from({ length: 64 }, () => "0123456789abcdef"[Math.floor(Math.random() * 16)]).join("");

/**
 * What tests/support/fake-providers/index.ts needs of a provider's fake, exported by its file
 * as `fake`: every registered provider has one (tests/providers/registry.test.ts).
 */
export interface FakeProvider<F extends FakeServer = FakeServer> {
  /** A new fake, not started. */
  create(): F & { setPair(from: string, to: string, p: { rate: string; min: string; max: string }): void };
  /** Settings that enable the provider against this fake. */
  env(fake: F): Record<string, string>;
  /** Whether `startFakes().env()` enables it without `{ all: true }`. */
  byDefault: boolean;
}
