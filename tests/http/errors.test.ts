import { describe, expect, it } from "vitest";
import { listCurrencies } from "@/lib/currencies";
import { ERROR_CODES, type ErrorCode } from "@/lib/errors";
import { HTTP_STATUS } from "@/lib/http/errors";
import { type ApiResponse, addressFor, api, isErrorShape, makeReseller, newIp } from "../support/api";

// One HTTP test per error code: status, code and shape. The last test fails when a code is
// added to lib/errors.ts without a case here (or a named home elsewhere).
const ELSEWHERE = {
  DAILY_LIMIT_EXCEEDED: "tests/http/rate-limits.test.ts (needs its own server)",
  INVALID_MARKUP: "dashboard and CLI only (tests/keys/api-keys.test.ts)",
  UNAUTHORIZED: "dashboard only (tests/http/dashboard-http.test.ts, tests/e2e)",
  RATE_EXPIRED: "tests/http/fixed-rate.test.ts (needs a server with a short quote life)",
  INVALID_SIGNATURE: "dashboard only (tests/http/withdrawals.test.ts)",
  WITHDRAWAL_NOT_FOUND: "dashboard and CLI only (tests/withdrawals/withdrawals.test.ts)",
  CONFIRMATION_USED: "dashboard only (tests/http/withdrawals.test.ts)",
  QUOTE_EXPIRED: "dashboard only (tests/withdrawals/withdrawals.test.ts)",
  INSUFFICIENT_BALANCE: "dashboard only (tests/withdrawals/withdrawals.test.ts)",
  INVALID_WITHDRAWAL_STATE: "dashboard and CLI only (tests/withdrawals/withdrawals.test.ts)",
  WITHDRAWAL_TOO_SMALL: "dashboard only (tests/withdrawals/withdrawals.test.ts)",
  PAYOUT_ASSET_UNAVAILABLE: "dashboard only (tests/withdrawals/withdrawals.test.ts)",
  PAYOUT_CHAIN_UNAVAILABLE: "dashboard only (tests/withdrawals/contract-wallet.test.ts)",
  PRICE_UNAVAILABLE: "dashboard only (tests/prices/live-prices.test.ts)",
  API_KEY_LIMIT_REACHED: "dashboard and CLI only (tests/http/dashboard-key-cap.test.ts)",
  REFUND_ADDRESS_UNSUPPORTED: "tests/http/refund-address.test.ts (needs ENGINE=providers: a provider without set-refund-address)",
  RESELLER_SUSPENDED: "tests/http/reseller-suspension.test.ts (a reseller suspended in the console)",
  FORBIDDEN: "console only (tests/http/console-roles.test.ts: every role by every action)",
  LAST_ADMIN: "console and CLI only (tests/operators/operators.test.ts)",
  WEBHOOK_ENDPOINT_DISABLED: "dashboard only (tests/webhooks/redeliver.test.ts)",
  INVITE_USED: "dashboard only (tests/teams/team.test.ts)",
  INVITE_EXPIRED: "dashboard only (tests/teams/team.test.ts)",
  INVITE_REVOKED: "dashboard only (tests/teams/team.test.ts)",
  INVITE_NOT_FOUND: "dashboard only (tests/teams/team.test.ts)",
  LAST_OWNER: "dashboard only (tests/teams/team.test.ts)",
  ALREADY_MEMBER: "dashboard only (tests/teams/team.test.ts)",
} as const satisfies Partial<Record<ErrorCode, string>>;

const order = (over: Record<string, unknown> = {}) => ({ from: "btc", to: "eth", amount: "0.01", address: addressFor("eth"), ...over });
const unavailable = () => listCurrencies().find((c) => !c.isAvailable)!;

const CASES: Record<Exclude<ErrorCode, keyof typeof ELSEWHERE>, () => Promise<ApiResponse>> = {
  INVALID_REQUEST: () => api("/exchange", { body: { from: "btc", to: "eth", amount: "1" } }),
  MALFORMED_JSON: () => api("/exchange", { rawBody: '{"from": "btc",', headers: { "content-type": "application/json" }, method: "POST" }),
  INVALID_IDEMPOTENCY_KEY: () => api("/exchange", { body: order(), headers: { "idempotency-key": "x".repeat(300) } }),
  INVALID_API_KEY: () => api("/currencies", { key: "rsk_live_NotARealKeyAtAll1234567890" }),
  API_KEY_REQUIRED: () => api("/sandbox/engine", { body: { fault: "error" } }),
  NOT_FOUND: () => api("/no-such-route"),
  FORBIDDEN_ORIGIN: () => api("/exchange", { body: order(), headers: { origin: "https://shop.example" } }),
  ORDER_NOT_FOUND: () => api("/exchange/0123456789abcdef01234567"),
  METHOD_NOT_ALLOWED: () => api("/currencies", { method: "DELETE" }),
  IDEMPOTENCY_CONFLICT: async () => {
    const ip = newIp();
    const headers = { "idempotency-key": `conflict-${ip}` };
    await api("/exchange", { ip, headers, body: order({ amount: "0.01" }) });
    return api("/exchange", { ip, headers, body: order({ amount: "0.02" }) });
  },
  INVALID_ORDER_STATE: async () => {
    const ip = newIp();
    const o = await api("/exchange", { ip, body: order() });
    await api(`/sandbox/exchange/${o.body.id}/deposit`, { ip, method: "POST" });
    return api(`/sandbox/exchange/${o.body.id}/deposit`, { ip, method: "POST" });
  },
  PAYLOAD_TOO_LARGE: () => api("/exchange", { body: order({ extraId: null, padding: "x".repeat(64 * 1024) }) }),
  INVALID_ADDRESS: () => api("/exchange", { body: order({ address: "0xfb6916095ca1df60bB79Ce92cE3Ea74c37c5d359" }) }),
  INVALID_EXTRA_ID: () => api("/exchange", { body: order({ extraId: "12345" }) }),
  INVALID_REFUND_ADDRESS: () => api("/exchange", { body: order({ refundAddress: addressFor("eth") }) }),
  INVALID_REFUND_EXTRA_ID: () => api("/exchange", { body: order({ refundAddress: addressFor("btc"), refundExtraId: "memo" }) }),
  UNKNOWN_CURRENCY: () => api("/estimate?from=btc&to=notacoin&amount=1"),
  CURRENCY_UNAVAILABLE: () => api(`/estimate?from=btc&to=${unavailable().ticker}&amount=0.01`),
  SAME_CURRENCY: () => api("/estimate?from=btc&to=BTC&amount=0.01"),
  INVALID_AMOUNT: () => api("/estimate?from=btc&to=eth&amount=-1"),
  AMOUNT_TOO_LOW: () => api("/estimate?from=btc&to=eth&amount=0.00000001"),
  AMOUNT_TOO_HIGH: () => api("/estimate?from=btc&to=eth&amount=100000"),
  INVALID_RATE_ID: () => api("/exchange", { body: order({ rateType: "fixed", rateId: "rate_0123456789abcdef01234567" }) }),
  RATE_ID_USED: async () => {
    const ip = newIp();
    const est = await api("/estimate?from=btc&to=eth&amount=0.01&rateType=fixed", { ip });
    const fixed = order({ rateType: "fixed", rateId: est.body.rateId });
    expect((await api("/exchange", { ip, body: fixed })).status).toBe(201);
    return api("/exchange", { ip, body: fixed });
  },
  REFUND_ADDRESS_LOCKED: async () => {
    const { key } = await makeReseller();
    const o = await api("/exchange", { key, body: order({ refundAddress: addressFor("btc") }) });
    return api(`/exchange/${o.body.id}/refund-address`, { key, body: { refundAddress: addressFor("btc") } });
  },
  UNSUPPORTED_MEDIA_TYPE: () =>
    api("/exchange", { method: "POST", rawBody: JSON.stringify(order()), headers: { "content-type": "text/plain;charset=UTF-8" } }),
  RATE_LIMITED: async () => {
    const ip = newIp();
    for (let i = 0; i < 60; i++) expect((await api("/currencies", { ip })).status).toBe(200);
    return api("/currencies", { ip });
  },
  INTERNAL_ERROR: async () => {
    const { key } = await makeReseller();
    expect((await api("/sandbox/engine", { key, body: { fault: "error" } })).status).toBe(200);
    return api("/estimate?from=btc&to=eth&amount=0.01", { key });
  },
  ENGINE_UNAVAILABLE: async () => {
    const { key } = await makeReseller();
    expect((await api("/sandbox/engine", { key, body: { fault: "unavailable" } })).status).toBe(200);
    return api("/exchange", { key, body: order() });
  },
};

describe("every error code answers its status, code and shape", () => {
  for (const [code, run] of Object.entries(CASES) as [ErrorCode, () => Promise<ApiResponse>][]) {
    it(`${code} -> ${HTTP_STATUS[code as ErrorCode]}`, async () => {
      const r = await run();
      expect(r.status, r.text).toBe(HTTP_STATUS[code as ErrorCode]);
      expect(isErrorShape(r.body), r.text).toBe(true);
      expect(r.body.error.code).toBe(code);
      expect(r.headers.get("content-type")).toMatch(/^application\/json/);
      expect(r.headers.get("ratelimit-policy")).toMatch(/q=\d+;w=\d+/);
    });
  }

  it("details that help the client come inside `error`", async () => {
    const low = await api("/estimate?from=btc&to=eth&amount=0.00000001");
    expect(typeof low.body.error.minAmount).toBe("number");
    const unknown = await api("/estimate?from=btc&to=nope&amount=1");
    expect(unknown.body.error.field).toBe("to");
    const missing = await api("/exchange", { body: { from: "btc" } });
    expect(missing.body.error.issues.map((i: { path: string }) => i.path).sort()).toEqual(["address", "amount", "to"]);
    const wrong = await api("/exchange", { method: "PUT", body: {} });
    expect(wrong.headers.get("allow")).toBe("POST, OPTIONS");
  });

  it("a 500 never leaks the internal message", async () => {
    const r = await CASES.INTERNAL_ERROR();
    expect(r.body.error.message).not.toMatch(/simulated|sandbox|stack|Error:/i);
  });

  it("the sandbox fault switch is scoped to the caller who set it", async () => {
    const { key } = await makeReseller();
    await api("/sandbox/engine", { key, body: { fault: "unavailable" } });
    expect((await api("/estimate?from=btc&to=eth&amount=0.01")).status).toBe(200);
    expect((await api("/estimate?from=btc&to=eth&amount=0.01", { key })).status).toBe(503);
    await api("/sandbox/engine", { key, body: { fault: null } });
    expect((await api("/estimate?from=btc&to=eth&amount=0.01", { key })).status).toBe(200);
  });

  it("covers every code of lib/errors.ts", () => {
    const covered = new Set([...Object.keys(CASES), ...Object.keys(ELSEWHERE)]);
    expect([...covered].sort()).toEqual([...ERROR_CODES].sort());
  });
});
