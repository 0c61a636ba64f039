import { describe, expect, it } from "vitest";
import { createClient, isApiError, ResellerApiError } from "@/packages/client/src/index";
import { DEFAULT_RETRY, retryDelay, retryPolicy } from "@/packages/client/src/retry";

// Which calls the client tries again: no answer, 429 and 5xx, on calls safe to repeat (reads,
// the idempotent writes, creations with their Idempotency-Key); never another 4xx, never the
// sandbox's deposit. The answers come from a fetch given to the client (the API cannot be made
// to answer a 500 or drop a connection on demand); what is checked is what the client sends.

const policy = retryPolicy({ baseDelayMs: 100, maxDelayMs: 1000 });
const one = () => 1; // the jitter's top: the longest wait

describe("retryDelay", () => {
  it("retries no answer, 429 and 5xx on safe calls, up to maxAttempts", () => {
    expect(retryDelay(policy, { networkError: new TypeError("fetch failed") }, 1, true, one)).toBe(100);
    expect(retryDelay(policy, { networkError: new TypeError("fetch failed") }, 2, true, one)).toBe(200);
    for (const status of [429, 500, 502, 503, 504]) expect(retryDelay(policy, { status }, 1, true, one), String(status)).toBe(100);
    expect(retryDelay(policy, { status: 503 }, 3, true, one)).toBeNull();
    expect(retryDelay(retryPolicy({ baseDelayMs: 100, maxDelayMs: 150, maxAttempts: 10 }), { status: 503 }, 5, true, one)).toBe(150);
  });

  it("never retries another 4xx, nor any failure of a call that is not safe to repeat", () => {
    for (const status of [400, 401, 403, 404, 405, 409, 413, 415, 422])
      expect(retryDelay(policy, { status }, 1, true), String(status)).toBeNull();
    for (const outcome of [{ status: 429 }, { status: 500 }, { networkError: new Error("reset") }])
      expect(retryDelay(policy, outcome, 1, false)).toBeNull();
  });

  it("waits a 429's Retry-After, unless it is longer than maxRetryAfterSeconds (a daily limit)", () => {
    expect(retryDelay(policy, { status: 429, retryAfterSeconds: 7 }, 1, true, one)).toBe(7000);
    expect(retryDelay(policy, { status: 429, retryAfterSeconds: 60 }, 1, true, one)).toBe(60_000);
    expect(retryDelay(policy, { status: 429, retryAfterSeconds: 61 }, 1, true, one)).toBeNull();
    expect(retryDelay(policy, { status: 429, retryAfterSeconds: 0 }, 1, true, one)).toBe(100);
  });

  it("takes false as no retries, and defaults to 3 attempts", () => {
    expect(retryPolicy(false).maxAttempts).toBe(1);
    expect(retryDelay(retryPolicy(false), { status: 503 }, 1, true)).toBeNull();
    expect(retryPolicy(undefined)).toEqual(DEFAULT_RETRY);
    expect(DEFAULT_RETRY.maxAttempts).toBe(3);
  });
});

type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | "network";

/** A client whose fetch answers `answers` in turn, recording each request. */
function scripted(answers: Answer[], retry = { baseDelayMs: 1, maxDelayMs: 2 }) {
  const sent: { method: string; url: string; headers: Headers; body: string | null }[] = [];
  const client = createClient({
    baseUrl: "http://api.test/api/v1/",
    apiKey: "rsk_live_test",
    retry,
    fetch: async (input, init) => {
      sent.push({
        method: init?.method ?? "GET",
        url: String(input),
        headers: new Headers(init?.headers),
        body: (init?.body as string) ?? null,
      });
      const a = answers.shift() ?? { status: 599 };
      if (a === "network") throw new TypeError("fetch failed");
      return new Response(a.body === undefined ? null : JSON.stringify(a.body), {
        status: a.status,
        headers: { "content-type": "application/json", "x-request-id": `req-${sent.length}`, ...a.headers },
      });
    },
  });
  return { client, sent };
}

const err = (code: string, extra: object = {}) => ({ error: { code, message: `${code} happened`, ...extra } });
const order = { id: "0123456789abcdef01234567", status: "waiting" };

describe("the client's calls", () => {
  it("retry a read through no answer, 503 and 429 (Retry-After 0) to its answer", async () => {
    const { client, sent } = scripted([
      "network",
      { status: 503, body: err("ENGINE_UNAVAILABLE") },
      { status: 200, body: { currencies: [] } },
    ]);
    expect(await client.listCurrencies()).toEqual([]);
    expect(sent).toHaveLength(3);
    expect(sent[0].url).toBe("http://api.test/api/v1/currencies");
    expect(sent[0].headers.get("x-api-key")).toBe("rsk_live_test");
    const again = scripted([
      { status: 429, body: err("RATE_LIMITED"), headers: { "retry-after": "0" } },
      { status: 200, body: { currencies: [] } },
    ]);
    await again.client.listCurrencies();
    expect(again.sent).toHaveLength(2);
  });

  it("give up after maxAttempts with the last error, typed", async () => {
    const { client, sent } = scripted(Array(5).fill({ status: 500, body: err("INTERNAL_ERROR") }));
    const e = await client.estimate({ fromCurrency: "btc", toCurrency: "eth", fromAmount: "1" }).catch((x) => x);
    expect(sent).toHaveLength(3);
    expect(e).toBeInstanceOf(ResellerApiError);
    expect(e).toMatchObject({ status: 500, code: "INTERNAL_ERROR", message: "INTERNAL_ERROR happened", requestId: "req-3" });
    expect(sent[0].url).toBe("http://api.test/api/v1/estimate?fromCurrency=btc&toCurrency=eth&fromAmount=1");
  });

  it("send every creation with an Idempotency-Key, the same on its retries, and retry it", async () => {
    const { client, sent } = scripted(["network", { status: 502, body: "<html>" }, { status: 201, body: order }]);
    const body = { from: "btc", to: "eth", amount: "0.1", address: "0xabc" };
    expect(await client.createExchange(body)).toEqual(order);
    expect(sent).toHaveLength(3);
    const keys = sent.map((s) => s.headers.get("idempotency-key"));
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(keys).size).toBe(1);
    expect(sent.map((s) => s.body)).toEqual(Array(3).fill(JSON.stringify(body)));
    expect(sent[0].headers.get("content-type")).toBe("application/json");
    // A new call, a new key; the caller's own key when given.
    const next = scripted([
      { status: 201, body: order },
      { status: 201, body: order },
    ]);
    await next.client.createExchange(body);
    await next.client.createExchange(body, { idempotencyKey: "mine-1" });
    expect(next.sent[0].headers.get("idempotency-key")).not.toBe(keys[0]);
    expect(next.sent[1].headers.get("idempotency-key")).toBe("mine-1");
  });

  it("never retry a 4xx other than 429, and answer it by its code and details", async () => {
    const { client, sent } = scripted([{ status: 422, body: err("AMOUNT_TOO_LOW", { minAmount: 0.001, maxAmount: 10 }) }]);
    const e = await client.createExchange({ from: "btc", to: "eth", amount: "0", address: "0xabc" }).catch((x) => x);
    expect(sent).toHaveLength(1);
    expect(isApiError(e, "AMOUNT_TOO_LOW")).toBe(true);
    expect(isApiError(e, "INVALID_ADDRESS")).toBe(false);
    expect(e.details).toEqual({ minAmount: 0.001, maxAmount: 10 });
    for (const status of [400, 401, 404, 409]) {
      const s = scripted([
        { status, body: err("X") },
        { status: 200, body: {} },
      ]);
      await expect(s.client.getExchange(order.id)).rejects.toMatchObject({ status });
      expect(s.sent, String(status)).toHaveLength(1);
    }
  });

  it("never retry the sandbox's deposit (a second one would be a 409), nor anything with retry: false", async () => {
    const { client, sent } = scripted([
      { status: 503, body: err("ENGINE_UNAVAILABLE") },
      { status: 200, body: order },
    ]);
    await expect(client.sandboxDeposit(order.id)).rejects.toMatchObject({ code: "ENGINE_UNAVAILABLE" });
    expect(sent).toHaveLength(1);
    const off = scripted([{ status: 429, body: err("RATE_LIMITED", { retryAfter: 5 }), headers: { "retry-after": "5" } }]);
    const e = await off.client.listCurrencies({ retry: false }).catch((x) => x);
    expect(off.sent).toHaveLength(1);
    expect(e).toMatchObject({ status: 429, code: "RATE_LIMITED", retryAfter: 5 });
  });

  it("throw a daily limit at once: its Retry-After is longer than maxRetryAfterSeconds", async () => {
    const { client, sent } = scripted([
      { status: 429, body: err("DAILY_LIMIT_EXCEEDED", { retryAfter: 40000 }), headers: { "retry-after": "40000" } },
    ]);
    const e = await client.createExchange({ from: "btc", to: "eth", amount: "1", address: "0xabc" }).catch((x) => x);
    expect(sent).toHaveLength(1);
    expect(e).toMatchObject({ code: "DAILY_LIMIT_EXCEEDED", retryAfter: 40000 });
  });

  it("answer a body not in the error shape as UNEXPECTED_RESPONSE", async () => {
    const { client } = scripted([{ status: 404, body: "<html>not here</html>" }]);
    await expect(client.getExchange(order.id)).rejects.toMatchObject({ status: 404, code: "UNEXPECTED_RESPONSE" });
  });
});
