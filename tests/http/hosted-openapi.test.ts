import fs from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { createWidget } from "@/lib/channels/channels";
import { hostedOrderBody } from "@/lib/http/hosted-schemas";
import { requestSchema } from "@/lib/http/openapi";
import { breakingChanges } from "../../scripts/openapi-compat";
import { addressFor, api, baseUrl, makeReseller, testDb } from "../support/api";
import { recordSecret } from "../support/secrets";
import { ROOT } from "../support/server";

// The hosted page's API in its own OpenAPI document (/api/hosted/openapi.json), built from the
// zod schemas that validate its requests and type the page (lib/http/hosted-schemas.ts). Every
// answer tests/support/api.ts receives under /api/hosted is checked against it, as v1's are
// against the v1 document; here every route is called once so that each is checked.

const SAME_ORIGIN = { "sec-fetch-site": "same-origin" };
const hosted = (p: string, opts: Parameters<typeof api>[1] = {}) =>
  api(p, { ...opts, prefix: "/api/hosted", headers: { ...SAME_ORIGIN, ...(opts.headers ?? {}) } });
const served = async () => (await api("/openapi.json", { prefix: "/api/hosted" })).body;
const snapshot = () => JSON.parse(fs.readFileSync(path.join(ROOT, "docs/openapi-hosted.json"), "utf8"));

describe("GET /api/hosted/openapi.json", () => {
  it("is an OpenAPI 3.1 document of every hosted route, built from the request schemas, and valid", async () => {
    const r = await api("/openapi.json", { prefix: "/api/hosted" });
    expect(r.status).toBe(200);
    const doc = r.body;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: "/api/hosted" }]);
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/address",
      "/currencies",
      "/estimate",
      "/orders",
      "/orders/{id}",
      "/orders/{id}/deposit",
      "/orders/{id}/refund-address",
    ]);
    // The body schema in the document is the very zod schema that validates POST /orders (its
    // input side, its defaults said in descriptions: lib/http/openapi.ts, withoutDefaults).
    const { $schema: _, ...fromZod } = z.toJSONSchema(hostedOrderBody, { io: "input", unrepresentable: "any" }) as Record<string, any>;
    expect(doc.components.schemas.HostedOrderRequest).toEqual(requestSchema(hostedOrderBody));
    expect(Object.keys(doc.components.schemas.HostedOrderRequest.properties)).toEqual(Object.keys(fromZod.properties));
    expect(JSON.stringify(doc.components.schemas.HostedOrderRequest)).not.toContain('"default"');
    // The drift issue 50 found: the page's minimum is a decimal string, as the server sends it.
    expect(doc.components.schemas.HostedCurrency.properties.minAmount.type).toBe("string");
    for (const m of JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/(\w+)\/(\w+)"/g))
      expect(doc.components[m[1]][m[2]], m[0]).toBeDefined();
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it.runIf(inject("dbKind") === "sqlite")("is the committed snapshot, docs/openapi-hosted.json (npm run openapi:snapshot)", async () => {
    const doc = await served();
    expect(breakingChanges(snapshot(), doc)).toEqual([]);
    expect(doc, "the hosted API changed: run npm run openapi:snapshot and commit docs/openapi-hosted.json").toEqual(snapshot());
  });
});

describe("every hosted route's answer matches the document", () => {
  it("currencies, estimate, address, order, status (200 and 304) and the sandbox deposit", async () => {
    const { reseller } = await makeReseller({ markupBps: 50 });
    const w = await createWidget(testDb(), { resellerId: reseller.id, input: { name: "Docs" } });
    // Each call below throws in api() when its answer does not match its documented schema.
    const cur = await hosted("/currencies");
    expect(cur.status).toBe(200);
    expect(cur.body.currencies.length).toBeGreaterThan(10);
    expect(typeof cur.body.currencies[0].minAmount).toBe("string");
    const est = await hosted(`/estimate?w=${w.id}&from=btc&to=eth&amount=0.05`);
    expect(est.status, est.text).toBe(200);
    const reverse = await hosted(`/estimate?r=${reseller.id}&from=btc&to=eth&toAmount=1&rateType=fixed`);
    expect(reverse.status, reverse.text).toBe(200);
    expect((await hosted(`/address?currency=eth&address=${addressFor("eth")}`)).body.valid).toBe(true);
    expect((await hosted(`/address?currency=xrp&address=${addressFor("xrp")}&extraId=12`)).body.extraIdValid).toBe(true);
    const made = await hosted("/orders", {
      body: { w: w.id, from: "btc", to: "eth", amount: "0.05", address: addressFor("eth"), refundAddress: addressFor("btc") },
    });
    expect(made.status, made.text).toBe(201);
    recordSecret(made.body.token);
    const headers = { "x-order-token": made.body.token };
    const status = await hosted(`/orders/${made.body.order.id}`, { headers });
    expect(status.status).toBe(200);
    const same = await hosted(`/orders/${made.body.order.id}`, { headers: { ...headers, "if-none-match": status.headers.get("etag")! } });
    expect(same.status).toBe(304);
    const dep = await hosted(`/orders/${made.body.order.id}/deposit`, { method: "POST", headers });
    expect(dep.status, dep.text).toBe(200);
    // Errors are documented too: a bad request, a refused origin, an unknown order.
    expect((await hosted(`/estimate?r=${reseller.id}&from=btc&to=eth`)).status).toBe(400);
    expect((await api("/currencies", { prefix: "/api/hosted", headers: { "sec-fetch-site": "cross-site" } })).status).toBe(403);
    expect((await hosted(`/orders/${"a".repeat(24)}`, { headers })).status).toBe(404);
  });
});

describe("one router for the v1 and hosted APIs", () => {
  it("answers a path no hosted route serves like v1's: 404 or 405 with Allow (no OPTIONS: no preflight here), in the error shape, without CORS", async () => {
    const none = await hosted("/nope");
    expect([none.status, none.body.error.code]).toEqual([404, "NOT_FOUND"]);
    expect(none.headers.get("access-control-allow-origin")).toBeNull();
    const wrong = await hosted("/orders", { method: "PUT" });
    expect([wrong.status, wrong.body.error.code, wrong.headers.get("allow")]).toEqual([405, "METHOD_NOT_ALLOWED", "POST"]);
    // Counted against the IP's limits like every other answer of the API.
    expect(wrong.headers.get("ratelimit")).toMatch(/"minute";r=\d+/);
    // The same path under the v1 prefix is v1's business: its own 404, with CORS.
    const v1 = await api("/orders");
    expect([v1.status, v1.headers.get("access-control-allow-origin")]).toEqual([404, "*"]);
    // The hosted API has no CORS preflight; v1's does.
    const pre = (prefix: string, p: string) =>
      fetch(`${baseUrl(prefix)}${p}`, {
        method: "OPTIONS",
        headers: { origin: "https://x.example", "access-control-request-method": "GET" },
      });
    expect((await pre("/api/v1", "/currencies")).status).toBe(204);
    const hostedPre = await pre("/api/hosted", "/currencies");
    expect(hostedPre.status).not.toBe(204);
    expect(hostedPre.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("a hosted route ignores an API key: auth is the route's (the page's origin), not whatever the request brings", async () => {
    const { key, reseller } = await makeReseller({ markupBps: 400 });
    const plain = await hosted(`/estimate?r=${reseller.id}&from=btc&to=eth&amount=0.1`);
    const keyed = await hosted(`/estimate?r=${reseller.id}&from=btc&to=eth&amount=0.1`, { key });
    expect(keyed.status).toBe(200);
    expect(keyed.body.fee).toBe(plain.body.fee);
    // A wrong key is not looked at either (v1 would answer 401).
    expect((await hosted(`/estimate?r=${reseller.id}&from=btc&to=eth&amount=0.1`, { key: "rsk_live_wrong" })).status).toBe(200);
    expect((await api("/currencies", { key: "rsk_live_wrong" })).status).toBe(401);
  });
});
