// The v1 API's client: one method per route (lib/http/app.ts's table), typed from the
// generated schema (schema.ts). No runtime dependency: the platform's fetch, TextDecoder,
// AbortSignal and WebCrypto, so it runs in Node 20+, Deno, Bun, workers and browsers alike.
// Not openapi-fetch: it would be a dependency every integrator installs and audits, for the
// few lines of URL building below; and the retries, the Idempotency-Key, the typed errors and
// the event stream would still have to be written around it.
import { apiErrorOf } from "./errors.js";
import { type FollowOptions, followOrder } from "./follow.js";
import { type RetryOptions, type RetryPolicy, retryDelay, retryPolicy, sleep } from "./retry.js";
import type {
  CreateExchangeRequest,
  Currencies,
  Currency,
  Estimate,
  EstimateRequest,
  ExchangeOrder,
  OrderStatus,
  Range,
  RangeRequest,
  RefundAddressRequest,
  SandboxDepositRequest,
  SandboxEngineCalls,
  SandboxEngineRequest,
} from "./types.js";

export interface ClientOptions {
  /** The API's root, e.g. "https://exchange.example/api/v1". */
  baseUrl: string;
  /** Your key (X-API-Key): your markup and limits. Without one: the Public tier. Never put it in a public page. */
  apiKey?: string;
  /** Retries of safe calls (see retry.ts); false: none. */
  retry?: RetryOptions | false;
  /** Another fetch (a proxy agent, a test double). Default: the global fetch. */
  fetch?: typeof fetch;
  /** Headers sent with every request (a User-Agent of yours, say). */
  headers?: Record<string, string>;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** This call's retries, instead of the client's. */
  retry?: RetryOptions | false;
}

export interface CreateOptions extends CallOptions {
  /** The Idempotency-Key (1 to 255 visible ASCII characters). Default: a random one per call, reused by its retries. */
  idempotencyKey?: string;
}

/** GET /exchange/{id} with its caching headers: the order (null on 304), its ETag and Poll-After. */
export interface ExchangeRead {
  order: OrderStatus | null;
  etag: string | null;
  /** Seconds after which reading again is worth it; null once the order is final. */
  pollAfterSeconds: number | null;
}

interface SendInit extends CallOptions {
  query?: Record<string, string | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Whether the call may be repeated (a read, an idempotent write, a keyed creation). */
  safe: boolean;
}

/** 128 random bits, hex: an Idempotency-Key (getRandomValues works outside secure contexts, randomUUID does not). */
export function randomIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class ResellerClient {
  private readonly base: string;
  private readonly policy: RetryPolicy;
  private readonly doFetch: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, "");
    this.policy = retryPolicy(options.retry);
    this.doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** GET /currencies */
  async listCurrencies(opts: CallOptions = {}): Promise<Currency[]> {
    return (await this.json<Currencies>("GET", "/currencies", { ...opts, safe: true })).currencies;
  }

  /** One currency by ticker (case-insensitive), from GET /currencies; undefined when the API has none. */
  async getCurrency(ticker: string, opts: CallOptions = {}): Promise<Currency | undefined> {
    const t = ticker.toLowerCase();
    return (await this.listCurrencies(opts)).find((c) => c.ticker === t);
  }

  /** GET /estimate: by fromAmount, or by toAmount (a reverse quote); rateType fixed answers a rateId. */
  estimate(req: EstimateRequest, opts: CallOptions = {}): Promise<Estimate> {
    return this.json<Estimate>("GET", "/estimate", { ...opts, query: { ...req }, safe: true });
  }

  /** GET /range: the pair's minAmount and maxAmount. */
  range(req: RangeRequest, opts: CallOptions = {}): Promise<Range> {
    return this.json<Range>("GET", "/range", { ...opts, query: { ...req }, safe: true });
  }

  /** POST /exchange, with an Idempotency-Key (so its retries never make a second order). */
  createExchange(body: CreateExchangeRequest, opts: CreateOptions = {}): Promise<ExchangeOrder> {
    const key = opts.idempotencyKey ?? randomIdempotencyKey();
    return this.json<ExchangeOrder>("POST", "/exchange", { ...opts, body, headers: { "Idempotency-Key": key }, safe: true });
  }

  /** GET /exchange/{id} */
  async getExchange(id: string, opts: CallOptions = {}): Promise<OrderStatus> {
    const r = await this.readExchange(id, opts);
    if (!r.order) throw new Error("unreachable: a read without If-None-Match answered 304");
    return r.order;
  }

  /** GET /exchange/{id} with If-None-Match (`etag`: the last answer's): order null when unchanged (304). */
  async readExchange(id: string, opts: CallOptions & { etag?: string | null } = {}): Promise<ExchangeRead> {
    const res = await this.send("GET", `/exchange/${encodeURIComponent(id)}`, {
      ...opts,
      headers: opts.etag ? { "If-None-Match": opts.etag } : {},
      safe: true,
    });
    const poll = res.headers.get("poll-after");
    const pollAfterSeconds = poll !== null && /^\d+$/.test(poll) ? Number(poll) : null;
    const etag = res.headers.get("etag") ?? opts.etag ?? null;
    if (res.status === 304) {
      await res.body?.cancel();
      return { order: null, etag, pollAfterSeconds };
    }
    return { order: (await res.json()) as OrderStatus, etag, pollAfterSeconds };
  }

  /** POST /exchange/{id}/refund-address (needs the order's API key). The same address again is a 200: retried as safe. */
  setRefundAddress(id: string, body: RefundAddressRequest, opts: CallOptions = {}): Promise<OrderStatus> {
    return this.json<OrderStatus>("POST", `/exchange/${encodeURIComponent(id)}/refund-address`, { ...opts, body, safe: true });
  }

  /** Sandbox: POST /sandbox/exchange/{id}/deposit (the quoted amount unless `amount`). Not retried: a second deposit is a 409. */
  sandboxDeposit(id: string, body: SandboxDepositRequest = {}, opts: CallOptions = {}): Promise<OrderStatus> {
    return this.json<OrderStatus>("POST", `/sandbox/exchange/${encodeURIComponent(id)}/deposit`, { ...opts, body, safe: false });
  }

  /** Sandbox: POST /sandbox/engine (an API key only): engine faults and market moves for your own requests. */
  sandboxEngine(body: SandboxEngineRequest, opts: CallOptions = {}): Promise<unknown> {
    return this.json<unknown>("POST", "/sandbox/engine", { ...opts, body, safe: true });
  }

  /** Sandbox: GET /sandbox/exchange/{id}/engine-calls */
  sandboxEngineCalls(id: string, opts: CallOptions = {}): Promise<SandboxEngineCalls> {
    return this.json<SandboxEngineCalls>("GET", `/sandbox/exchange/${encodeURIComponent(id)}/engine-calls`, { ...opts, safe: true });
  }

  /** GET /openapi.json: the API's document. */
  openApiDocument(opts: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.json<Record<string, unknown>>("GET", "/openapi.json", { ...opts, safe: true });
  }

  /**
   * Follows an order to a final state (finished, failed) and resolves with it: over the
   * order's event stream (GET /exchange/{id}/events), or by polling GET /exchange/{id} as its
   * Poll-After says (transport "poll", or by itself when the server has no stream).
   */
  followOrder(id: string, opts: FollowOptions = {}): Promise<OrderStatus> {
    return followOrder(this, id, opts);
  }

  private async json<T>(method: "GET" | "POST", path: string, init: SendInit): Promise<T> {
    const res = await this.send(method, path, init);
    return (await res.json()) as T;
  }

  /**
   * One call with its retries: the answer when 2xx or 304 (its body unread), a
   * ResellerApiError for an error answer, the fetch's own error when no answer came.
   * @internal (followOrder's stream uses it)
   */
  async send(method: "GET" | "POST", path: string, init: SendInit & { accept?: string }): Promise<Response> {
    const url = new URL(this.base + path);
    for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    const headers: Record<string, string> = { Accept: init.accept ?? "application/json", ...this.options.headers, ...init.headers };
    if (this.options.apiKey) headers["X-API-Key"] = this.options.apiKey;
    let body: string | undefined;
    if (init.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(init.body);
    }
    const policy = init.retry === undefined ? this.policy : retryPolicy(init.retry);
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await this.doFetch(url, { method, headers, body, signal: init.signal });
      } catch (e) {
        if (init.signal?.aborted) throw e;
        const wait = retryDelay(policy, { networkError: e }, attempt, init.safe);
        if (wait === null) throw e;
        await sleep(wait, init.signal);
        continue;
      }
      if (res.ok || res.status === 304) return res;
      const error = apiErrorOf(res, await res.text());
      const wait = retryDelay(policy, { status: res.status, retryAfterSeconds: error.retryAfter }, attempt, init.safe);
      if (wait === null) throw error;
      await sleep(wait, init.signal);
    }
  }
}

export const createClient = (options: ClientOptions): ResellerClient => new ResellerClient(options);
