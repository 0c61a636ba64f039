import { describe, expect, it } from "vitest";
import { addressFor, api, makeReseller, pollUntil } from "../support/api";

// Cheap polling: GET /exchange/{id} carries an ETag; If-None-Match answers 304 with no body
// while the order is unchanged, and 200 with a new ETag once it moved. Poll-After says when
// reading again is worth it.

async function newOrder(key?: string) {
  const r = await api("/exchange", { key, body: { from: "ltc", to: "eth", amount: "2", address: addressFor("eth") } });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

describe("GET /exchange/{id}: ETag, 304 and Poll-After", () => {
  it("304 with no body on an unchanged order, 200 with a new ETag after a state change", async () => {
    const { key } = await makeReseller();
    const id = await newOrder(key);
    const first = await api(`/exchange/${id}`, { key });
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    // A waiting order: worth another look within the minute.
    expect(Number(first.headers.get("poll-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(first.headers.get("poll-after"))).toBeLessThanOrEqual(60);

    const same = await api(`/exchange/${id}`, { key, headers: { "if-none-match": etag! } });
    expect(same.status).toBe(304);
    expect(same.text).toBe("");
    expect(same.headers.get("etag")).toBe(etag);
    expect(same.headers.get("ratelimit")).toBeTruthy();
    // The weak form and a list naming it match too; another tag does not.
    expect((await api(`/exchange/${id}`, { key, headers: { "if-none-match": `"x", W/${etag}` } })).status).toBe(304);
    expect((await api(`/exchange/${id}`, { key, headers: { "if-none-match": '"other"' } })).status).toBe(200);

    const dep = await api(`/sandbox/exchange/${id}/deposit`, { key, method: "POST" });
    expect(dep.status).toBe(200);
    const moved = await api(`/exchange/${id}`, { key, headers: { "if-none-match": etag! } });
    expect(moved.status).toBe(200);
    expect(moved.body.status).not.toBe("waiting");
    expect(moved.headers.get("etag")).not.toBe(etag);
    // The ETag is the body's: the same body (read twice) has the same tag.
    const { order } = await pollUntil(id, ["finished"], { key });
    const a = await api(`/exchange/${id}`, { key });
    const b = await api(`/exchange/${id}`, { key });
    expect(a.body).toEqual(order);
    expect(a.headers.get("etag")).toBe(b.headers.get("etag"));
    // A final order does not change any more: no Poll-After.
    expect(a.headers.get("poll-after")).toBeNull();
    expect((await api(`/exchange/${id}`, { key, headers: { "if-none-match": a.headers.get("etag")! } })).status).toBe(304);
  });

  it("a 304 is never given for another reseller's order (404 first)", async () => {
    const { key } = await makeReseller();
    const other = await makeReseller();
    const id = await newOrder(key);
    const r = await api(`/exchange/${id}`, { key });
    const stranger = await api(`/exchange/${id}`, { key: other.key, headers: { "if-none-match": r.headers.get("etag")! } });
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.code).toBe("ORDER_NOT_FOUND");
  });
});
