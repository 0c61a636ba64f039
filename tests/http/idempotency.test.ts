import { describe, expect, it } from "vitest";
import { addressFor, api, makeReseller, newIp, testDb } from "../support/api";

describe("Idempotency-Key on POST /exchange", () => {
  it("same key and body twice: the same order; a different body: 409", async () => {
    const { key } = await makeReseller();
    const body = { from: "btc", to: "eth", amount: "0.02", address: addressFor("eth") };
    const headers = { "idempotency-key": "order-42" };
    const a = await api("/exchange", { key, body, headers });
    const b = await api("/exchange", { key, body, headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body).toEqual(a.body);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(a.headers.get("idempotent-replayed")).toBeNull();
    const c = await api("/exchange", { key, body: { ...body, amount: "0.03" }, headers });
    expect(c.status).toBe(409);
    expect(c.body.error.code).toBe("IDEMPOTENCY_CONFLICT");
    expect(await testDb().order.count({ where: { idempotencyKey: "order-42", resellerId: { not: null }, id: a.body.id } })).toBe(1);
  });

  it("20 concurrent requests with one key create exactly one order", async () => {
    const { key, reseller } = await makeReseller();
    const body = { from: "ltc", to: "btc", amount: "2", address: addressFor("btc") };
    const headers = { "idempotency-key": "burst-1" };
    const results = await Promise.all(Array.from({ length: 20 }, () => api("/exchange", { key, body, headers })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await testDb().order.count({ where: { resellerId: reseller.id } })).toBe(1);
    expect(results.filter((r) => r.headers.get("idempotent-replayed") === null)).toHaveLength(1);
  });

  it("keys are scoped: the same Idempotency-Key from two resellers makes two orders", async () => {
    const a = await makeReseller();
    const b = await makeReseller();
    const body = { from: "btc", to: "eth", amount: "0.02", address: addressFor("eth") };
    const headers = { "idempotency-key": "shared" };
    const ra = await api("/exchange", { key: a.key, body, headers });
    const rb = await api("/exchange", { key: b.key, body, headers });
    expect(ra.body.id).not.toBe(rb.body.id);
    // Keyless callers are scoped by IP.
    const ip1 = newIp();
    const k1 = await api("/exchange", { ip: ip1, body, headers });
    const k1again = await api("/exchange", { ip: ip1, body, headers });
    const k2 = await api("/exchange", { body, headers });
    expect(k1again.body.id).toBe(k1.body.id);
    expect(k2.body.id).not.toBe(k1.body.id);
  });

  it("without the header every request is a new order", async () => {
    const body = { from: "btc", to: "eth", amount: "0.02", address: addressFor("eth") };
    const ip = newIp();
    const a = await api("/exchange", { ip, body });
    const b = await api("/exchange", { ip, body });
    expect(a.body.id).not.toBe(b.body.id);
  });
});
