import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { createKeyInUi, ethAddress, newWallet, signIn } from "./helpers";

// The v1 API's browser policy (docs/api.md, Browsers; issue 48), in Chromium: a page of another
// site may read the API and may write with an API key, but a keyless order from its visitors'
// browsers is refused before it is sent (the preflight grants no keyless POST).

/** A page of another origin (its own port) that calls the API from the browser. */
async function foreignSite() {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end('<!doctype html><html lang="en"><head><title>Another site</title></head><body><h1>Another site</h1></body></html>');
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

test("a page of another site can read and can order with a key, but cannot create a keyless order", async ({ page, browser, baseURL }) => {
  await signIn(page, newWallet());
  const key = await createKeyInUi(page, "Site key");
  const site = await foreignSite();
  const visitor = await browser.newPage();
  await visitor.goto(site.url);
  const api = `${baseURL}/api/v1`;
  const body = JSON.stringify({ from: "btc", to: "eth", amount: "0.01", address: ethAddress() });

  // What a foreign page's script would do. An error thrown by fetch is what the page sees
  // when the browser refuses (a CORS failure): the request never reached the handler.
  const call = (url: string, init: { method?: string; headers?: Record<string, string>; body?: string }) =>
    visitor.evaluate(
      async ({ url, init }) => {
        try {
          const r = await fetch(url, init);
          return { status: r.status, body: await r.text() };
        } catch (e) {
          return { status: 0, body: String(e) };
        }
      },
      { url, init },
    );

  const keyless = await call(`${api}/exchange`, { method: "POST", headers: { "content-type": "application/json" }, body });
  expect(keyless.status).toBe(0);
  expect(keyless.body).toContain("Failed to fetch");
  // Without a preflight (a "simple" request) the browser does send it: the server refuses its origin.
  const simple = await call(`${api}/exchange`, { method: "POST", headers: { "content-type": "text/plain" }, body });
  expect(simple.status).toBe(403);
  expect(JSON.parse(simple.body).error.code).toBe("FORBIDDEN_ORIGIN");

  const read = await call(`${api}/estimate?from=btc&to=eth&amount=0.1`, {});
  expect(read.status).toBe(200);
  expect(JSON.parse(read.body).toCurrency).toBe("eth");

  const keyed = await call(`${api}/exchange`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body,
  });
  expect(keyed.status).toBe(201);
  expect(JSON.parse(keyed.body).payinAddress).toBeTruthy();

  await visitor.close();
  await site.close();
});
