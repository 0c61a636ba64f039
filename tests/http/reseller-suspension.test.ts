import { describe, expect, inject, it } from "vitest";
import { createWidget } from "@/lib/channels/channels";
import { suspendReseller, unsuspendReseller } from "@/lib/console/resellers/actions";
import { createApiKey, revokeApiKey } from "@/lib/keys/api-keys";
import type { Actor } from "@/lib/operators/audit";
import { type ApiResponse, addressFor, api, makeReseller, newIp, sleep, testDb, withinKeyChangeBound } from "../support/api";
import { recordSecret } from "../support/secrets";

// Issue 52, point 5 and its done-when: a reseller suspended by the operator. Its API keys get
// 403 RESELLER_SUSPENDED on every v1 endpoint (every operation of the served OpenAPI document,
// which tests/http/openapi.test.ts holds to the router's table), its exchange page and widget
// say the service is unavailable and show no form, the hosted API takes no new order for it;
// its open orders still finish (a keyed one deposited before, a hosted one deposited after, on
// its status page's API); restoring it brings everything back. Against the suite's built
// server: the suspension is written by this process (as the console's or the CLI's would be
// by theirs), so the server learns it through the key cache's announcements, within its bound.

const root = () => inject("baseUrl");
const OPERATOR: Actor = { operatorId: null, actor: "test-operator", role: "admin" };
const SAME_ORIGIN = { "sec-fetch-site": "same-origin" };
const hosted = (path: string, opts: Parameters<typeof api>[1] = {}) =>
  api(path, { ...opts, prefix: "/api/hosted", headers: { ...SAME_ORIGIN, ...(opts.headers ?? {}) } });

const order = () => ({ from: "btc", to: "eth", amount: "0.05", address: addressFor("eth"), refundAddress: addressFor("btc") });

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>> };

/** Every operation of the v1 API as its served document lists it, `{id}` filled with `orderId`. */
async function v1Operations(orderId: string) {
  const doc = (await api<Doc>("/openapi.json")).body;
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), template: path, path: path.replace("{id}", orderId), op })),
  );
}

/** The request of an operation with `key`: a body the route would take (refused before it is read). */
function call(op: { method: string; path: string }, key: string, prefix?: string): Promise<ApiResponse> {
  const body = op.path === "/exchange" ? order() : op.path === "/sandbox/engine" ? { fault: null } : op.method === "POST" ? {} : undefined;
  const query = op.path === "/estimate" || op.path === "/range" ? "?from=btc&to=eth&amount=0.05" : "";
  return api(op.path + query, { method: op.method, key, body, prefix });
}

async function finished(orderId: string): Promise<string> {
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(50)) {
    const o = await testDb().order.findUnique({ where: { id: orderId }, select: { status: true } });
    if (o?.status === "finished" || o?.status === "failed") return o.status;
  }
  throw new Error(`order ${orderId} did not end`);
}

describe("a suspended reseller", () => {
  it("gets 403 RESELLER_SUSPENDED on every v1 endpoint, its page and widget say the service is unavailable, its open orders finish; a restore brings both back", async () => {
    const { reseller, key } = await makeReseller({ markupBps: 100 });
    const second = await createApiKey(testDb(), { resellerId: reseller.id, name: "second" });
    recordSecret(second.key);
    const gone = await createApiKey(testDb(), { resellerId: reseller.id, name: "gone" });
    recordSecret(gone.key);
    await revokeApiKey(testDb(), { resellerId: reseller.id, keyId: gone.apiKey.id });
    const other = await makeReseller();
    const widget = await createWidget(testDb(), { resellerId: reseller.id, input: { name: "Shop" } });

    // Before: a keyed order, deposited; a hosted order, waiting for its deposit.
    const keyed = await api("/exchange", { key, body: order() });
    expect(keyed.status, keyed.text).toBe(201);
    expect((await api(`/sandbox/exchange/${keyed.body.id}/deposit`, { key, method: "POST" })).status).toBe(200);
    const made = await hosted("/orders", { ip: newIp(), body: { r: reseller.id, ...order() } });
    expect(made.status, made.text).toBe(201);
    recordSecret(made.body.token);
    const page = await fetch(`${root()}/x/${reseller.id}`);
    const before = await page.text();
    expect(page.status).toBe(200);
    expect(before).toContain('data-testid="update-estimate"');
    expect(before).not.toContain('data-testid="service-unavailable"');

    const s = await suspendReseller(testDb(), { resellerId: reseller.id, by: OPERATOR, reason: "chargebacks under review" });
    expect(s.changed).toBe(true);

    // Within the key cache's bound, the key is refused...
    const first = await withinKeyChangeBound(
      () => api("/currencies", { key }),
      (r) => r.status === 403,
    );
    expect([first.status, first.body.error.code]).toEqual([403, "RESELLER_SUSPENDED"]);
    expect(Object.keys(first.body)).toEqual(["error"]);
    // ... on every operation of the v1 API, both keys, under both prefixes.
    const ops = await v1Operations(keyed.body.id);
    const keyed403 = ops.filter((o) => o.template !== "/openapi.json");
    expect(keyed403.map((o) => `${o.method} ${o.template}`).sort()).toEqual(
      [
        "GET /currencies",
        "GET /estimate",
        "GET /range",
        "POST /exchange",
        "GET /exchange/{id}",
        "GET /exchange/{id}/events",
        "POST /exchange/{id}/refund-address",
        "POST /sandbox/exchange/{id}/deposit",
        "GET /sandbox/exchange/{id}/engine-calls",
        "POST /sandbox/engine",
      ].sort(),
    );
    for (const op of keyed403) {
      // The document lists the answer (tests/support/api.ts checks every answer against it, too).
      expect(op.op.responses["403"]?.description, `${op.method} ${op.template}`).toContain("RESELLER_SUSPENDED");
      for (const [k, prefix] of [
        [key, undefined],
        [second.key, "/v1"],
      ] as const) {
        const r = await call(op, k, prefix);
        expect([r.status, r.body?.error?.code], `${op.method} ${prefix ?? "/api/v1"}${op.path}`).toEqual([403, "RESELLER_SUSPENDED"]);
      }
    }
    // Nothing was done: no order made, the sandbox fault not set.
    expect(await testDb().order.count({ where: { resellerId: reseller.id } })).toBe(2);
    // A revoked key stays a 401 (checked first); another reseller's key and the Public tier are unaffected.
    expect((await api("/currencies", { key: gone.key })).body.error.code).toBe("INVALID_API_KEY");
    expect((await api("/currencies", { key: other.key })).status).toBe(200);
    expect((await api("/currencies")).status).toBe(200);

    // Its exchange page and widget: a clear page, no form; in the visitor's language.
    for (const path of [`/x/${reseller.id}`, `/w/${widget.id}`, `/x/${reseller.id}?lang=de`]) {
      const r = await fetch(`${root()}${path}`);
      const html = await r.text();
      expect(r.status, path).toBe(200);
      expect(html, path).toContain('data-testid="service-unavailable"');
      expect(html, path).toContain(path.endsWith("?lang=de") ? "Dienst nicht verfügbar" : "Service unavailable");
      expect(html, path).not.toContain('data-testid="update-estimate"');
      expect(html, path).not.toContain("<form");
    }
    // The hosted API starts nothing for it.
    const est = await hosted(`/estimate?r=${reseller.id}&from=btc&to=eth&amount=0.05`);
    expect([est.status, est.body.error.code]).toEqual([403, "RESELLER_SUSPENDED"]);
    const refused = await hosted("/orders", { ip: newIp(), body: { w: widget.id, ...order() } });
    expect([refused.status, refused.body.error.code]).toEqual([403, "RESELLER_SUSPENDED"]);

    // Its open orders go on: the hosted one's deposit from its status page's API, then both finish.
    const tokenHeaders = { "x-order-token": made.body.token };
    const dep = await hosted(`/orders/${made.body.order.id}/deposit`, { method: "POST", headers: tokenHeaders });
    expect(dep.status, dep.text).toBe(200);
    expect(await finished(keyed.body.id)).toBe("finished");
    expect(await finished(made.body.order.id)).toBe("finished");
    const status = await hosted(`/orders/${made.body.order.id}`, { headers: tokenHeaders });
    expect([status.status, status.body.status]).toEqual([200, "finished"]);
    const statusPage = await fetch(`${root()}${made.body.statusPath}`);
    expect(statusPage.status).toBe(200);
    expect(await statusPage.text()).toContain('data-status="finished"');

    // Restored: the keys work again (within the bound), the page shows its form.
    const r = await unsuspendReseller(testDb(), { resellerId: reseller.id, by: OPERATOR, reason: "cleared" });
    expect(r.changed).toBe(true);
    const back = await withinKeyChangeBound(
      () => api("/currencies", { key }),
      (x) => x.status === 200,
    );
    expect(back.status).toBe(200);
    const mine = await api(`/exchange/${keyed.body.id}`, { key: second.key });
    expect([mine.status, mine.body.status]).toEqual([200, "finished"]);
    const again = await api("/exchange", { key, body: order() });
    expect(again.status, again.text).toBe(201);
    const restoredPage = await (await fetch(`${root()}/x/${reseller.id}`)).text();
    expect(restoredPage).toContain('data-testid="update-estimate"');
    expect(restoredPage).not.toContain('data-testid="service-unavailable"');
    expect((await hosted(`/estimate?w=${widget.id}&from=btc&to=eth&amount=0.05`)).status).toBe(200);
  });
});
