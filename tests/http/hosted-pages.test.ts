import http from "node:http";
import { describe, expect, inject, it } from "vitest";
import { addressFor, api, makeReseller, newIp } from "../support/api";
import { startApp } from "../support/app";
import { recordSecret } from "../support/secrets";

// The end user's pages over HTTP (issue 51): a status page rendered on the server from the
// secret in its link's query (the whole log of the server is searched for the secret at the
// end of the suite: tests/support/global-server.ts), reloading itself while the order is open;
// the hosted 404 without JavaScript and without a way into the dashboard; no cookie; no
// Referer; the language from `lang`; Onion-Location only with ONION_ADDRESS, and not over the onion.

const root = () => inject("baseUrl");
const ONION = `${"a".repeat(52)}2345.onion`;

async function hostedOrder(resellerId: string) {
  const r = await api("/orders", {
    prefix: "/api/hosted",
    ip: newIp(),
    headers: { "sec-fetch-site": "same-origin" },
    body: { r: resellerId, from: "btc", to: "eth", amount: "0.05", address: addressFor("eth") },
  });
  expect(r.status, r.text).toBe(201);
  recordSecret(r.body.token);
  return r.body as { token: string; statusPath: string; order: { id: string } };
}

/** A GET with the Host header given (fetch cannot set it). */
function getWithHost(url: string, host: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res);
    });
    req.on("error", reject);
  });
}

describe("the end user's pages", () => {
  it("the status page renders the order from ?t=, reloads itself while open, sends no cookie and no Referer; a wrong secret is the hosted 404", async () => {
    const { reseller } = await makeReseller();
    const { token, order, statusPath } = await hostedOrder(reseller.id);
    expect(statusPath).toBe(`/o/${order.id}?t=${token}`);
    const res = await fetch(`${root()}${statusPath}`);
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(res.headers.get("onion-location")).toBeNull();
    expect(html).toContain('data-status="waiting"');
    expect(html).toMatch(/<noscript><meta http-equiv="refresh" content="([5-9]|[12]\d|30)"><\/noscript>/);
    expect(html).toMatch(/<img src="data:image\/png;base64,[A-Za-z0-9+/=]+" alt="QR code of the deposit address [^"]+"/);
    expect(html).toContain('<html lang="en"');
    for (const wrong of [`/o/${order.id}`, `/o/${order.id}?t=${"A".repeat(32)}`, `/o/${"0".repeat(24)}?t=${token}`]) {
      const r = await fetch(`${root()}${wrong}`);
      const body = await r.text();
      expect(r.status, wrong).toBe(404);
      expect(body).toContain("Order not found");
      expect(body).not.toMatch(/dashboard/i);
      expect(r.headers.get("referrer-policy")).toBe("no-referrer");
    }
  });

  it("the hosted page: server-rendered form with the pair's limits, in the language `lang` asks; an unknown reseller is the hosted 404", async () => {
    const { reseller } = await makeReseller();
    const res = await fetch(`${root()}/x/${reseller.id}?from=btc&to=eth&lang=de`);
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(html).toContain('<html lang="de"');
    // In German (lib/i18n/messages/de.json), not English.
    expect(html).toMatch(/Senden Sie zwischen [0-9.]+ und [0-9.]+ BTC\./);
    expect(html).not.toContain("Send between");
    expect(html).toContain('data-testid="update-estimate"');
    const unknown = await fetch(`${root()}/x/nosuchreseller?lang=fr`, { headers: { "accept-language": "de" } });
    const body = await unknown.text();
    expect(unknown.status).toBe(404);
    expect(body).toContain('<html lang="fr"');
    expect(body).not.toMatch(/dashboard/i);
    // The dashboard keeps its own policy.
    expect((await fetch(`${root()}/signin`)).headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  });

  it("with ONION_ADDRESS, the hosted pages send Onion-Location with their path and query, except over the onion itself", async () => {
    // The header is the server's (lib/http/server.ts), before Next: an app in this process shows it.
    const s = await startApp({ databaseUrl: inject("databaseUrl"), env: { ONION_ADDRESS: ONION } });
    try {
      const page = await fetch(`${s.baseUrl}/x/nosuchreseller?lang=de`);
      expect(page.status).toBe(404);
      expect(page.headers.get("onion-location")).toBe(`http://${ONION}/x/nosuchreseller?lang=de`);
      expect((await fetch(`${s.baseUrl}/w/nosuchwidget`)).headers.get("onion-location")).toBe(`http://${ONION}/w/nosuchwidget`);
      expect((await fetch(`${s.baseUrl}/signin`)).headers.get("onion-location")).toBeNull();
      expect((await fetch(`${s.baseUrl}/api/v1/currencies`)).headers.get("onion-location")).toBeNull();
      const overOnion = await getWithHost(`${s.baseUrl}/x/nosuchreseller`, ONION);
      expect(overOnion.statusCode).toBe(404);
      expect(overOnion.headers["onion-location"]).toBeUndefined();
    } finally {
      await s.stop();
    }
  });
});
