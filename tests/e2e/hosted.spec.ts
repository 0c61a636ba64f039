import http from "node:http";
import type { AddressInfo } from "node:net";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import Decimal from "decimal.js";
import {
  apiContext,
  createKeyInUi,
  createWidgetInUi,
  estimate,
  ethAddress,
  newWallet,
  resellerIdOf,
  setMarkupInUi,
  signIn,
} from "./helpers";

// The hosted exchange page and the embeddable widget, end to end in Chromium: a "reseller
// site" served from its own origin embeds the widget; a user exchanges LTC for ETH in the
// iframe through the sandbox; the order shows in the dashboard under the widget's channel with
// the widget's markup and exact profit; a site not on the widget's list cannot frame it; the
// status link opens in a fresh browser and the same URL without its secret does not.

const ETH_PRECISION = 8;

/**
 * No serious or critical axe violation on the page. `frameless`: the page is checked to have no
 * frame, and axe runs in it (legacy mode): the same rules as runPartial and finishRun, without the
 * blank page that finishRun opens and loads axe into for every check. A page with a frame (the
 * Widgets page's preview) is checked the default way, in each of its frames.
 */
async function noSeriousViolations(page: Page, what: string, opts: { frameless?: boolean } = {}) {
  if (opts.frameless) await expect(page.locator("iframe"), what).toHaveCount(0);
  const r = await new AxeBuilder({ page }).setLegacyMode(opts.frameless === true).analyze();
  const bad = r.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(
    bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    what,
  ).toEqual([]);
}

test("a site embeds the widget; the user exchanges through it; the order is the widget's, with its markup and exact profit", async ({
  page,
  browser,
  baseURL,
}) => {
  const appOrigin = new URL(baseURL!).origin;
  const wallet = newWallet();
  await signIn(page, wallet);
  // The reseller's site, on its own port: its origin is the one the widget lists.
  const allowed = await resellerSiteOn(appOrigin, "about:blank");
  const widgetId = await createWidgetInUi(page, { name: "Shop widget", markup: 250, origins: [allowed.url] });
  await allowed.setSrc(`${appOrigin}/w/${widgetId}?from=ltc&to=eth`);

  // The user, on the reseller's site.
  const user = await browser.newContext();
  const visitor = await user.newPage();
  await visitor.goto(allowed.url);
  const w = visitor.frameLocator("#widget");
  await expect(w.getByRole("heading", { name: "Shop widget" })).toBeVisible();
  // Pick the pair in the lists (the default from the URL is already LTC; choose it through the list anyway).
  await w.getByTestId("pick-from").selectOption("ltc");
  await expect(w.getByTestId("pick-from")).toHaveValue("ltc");
  await expect(w.getByTestId("pick-from").locator("option:checked")).toHaveText("LTC – Litecoin");
  await expect(w.getByTestId("pick-to")).toHaveValue("eth");
  await w.getByTestId("amount").fill("2");
  await expect(w.getByTestId("estimate-to")).toContainText("ETH");
  await w.getByTestId("address").fill("not-an-address");
  await expect(w.getByTestId("address-check")).toHaveText("This is not a valid Ethereum (ETH) address.");
  // Exchange with it: refused beside the field (the same words as without JavaScript), no order.
  await w.getByTestId("create-order").click();
  await expect(w.getByTestId("address-check")).toHaveText("This is not a valid Ethereum (ETH) address.");
  await expect(w.getByTestId("order-status")).toHaveCount(0);
  const payout = ethAddress();
  await w.getByTestId("address").fill(payout);
  await expect(w.getByTestId("address-check")).toHaveText("Valid address.");
  await w.getByTestId("create-order").click();

  // The deposit screen: amount, address, QR code, countdown.
  await expect(w.getByTestId("order-status")).toHaveText("Waiting for your deposit");
  await expect(w.getByTestId("deposit-qr")).toBeVisible();
  expect(await w.getByTestId("deposit-qr").getAttribute("src")).toMatch(/^data:image\/png;base64,/);
  await expect(w.getByTestId("expiry-countdown")).toHaveText(/^\([0-9]+:[0-5][0-9]\)$/);
  await expect(w.getByTestId("deadline")).toContainText(/Expires at .*UTC/);
  await expect(w.getByText(/Deposit address \(Litecoin\)/)).toBeVisible();
  // The iframe grew to its content (the resize snippet).
  await expect.poll(async () => (await visitor.locator("#widget").boundingBox())?.height ?? 0).not.toBe(640);
  const statusHref = await w.getByTestId("status-link").getAttribute("href");
  expect(statusHref).toMatch(/^\/o\/[0-9a-f]{24}\?t=[1-9A-HJ-NP-Za-km-z]{20,}$/);
  const token = statusHref!.slice(30);
  const orderId = statusHref!.slice(3, 27);

  await w.getByRole("button", { name: "Simulate the deposit" }).click();
  await expect(w.getByTestId("order-status")).toHaveText("Finished", { timeout: 120_000 });
  await expect(w.getByText("Payout:")).toBeVisible();

  // The status link in a fresh browser opens the order; without its secret it does not.
  const fresh = await browser.newContext();
  const reader = await fresh.newPage();
  await reader.goto(`${appOrigin}${statusHref}`);
  await expect(reader.getByTestId("order-status")).toHaveText("Finished");
  await expect(reader.getByText(`Order ${orderId}`)).toBeVisible();
  await noSeriousViolations(reader, "status page", { frameless: true });
  const stranger = await (await browser.newContext()).newPage();
  await stranger.goto(`${appOrigin}/o/${orderId}`);
  await expect(stranger.getByRole("heading", { name: "Order not found" })).toBeVisible();
  await expect(stranger.getByTestId("order-status")).toHaveCount(0);
  // (From another page: from /o/<id> itself, a fragment alone would not load the page again.)
  await stranger.goto("about:blank");
  await stranger.goto(`${appOrigin}/o/${orderId}#t=${"A".repeat(32)}`);
  // The page moves a fragment's secret into the query (and the server refuses this one).
  await stranger.waitForURL(`${appOrigin}/o/${orderId}?t=${"A".repeat(32)}`);
  await expect(stranger.getByRole("heading", { name: "Order not found" })).toBeVisible();
  // An old link, its secret in the fragment: with JavaScript the page moves it into the query and shows the order.
  await stranger.goto("about:blank");
  await stranger.goto(`${appOrigin}/o/${orderId}#t=${token}`);
  await expect(stranger.getByTestId("order-status")).toHaveText("Finished");
  expect(new URL(stranger.url()).searchParams.get("t")).toBe(token);

  // The reseller's dashboard: under the widget's channel, with its markup and the profit it implies, exact.
  const api = await apiContext(baseURL!);
  const keyless = await estimate(api, undefined, "from=ltc&to=eth&amount=2");
  const raw = new Decimal(String(keyless.body.toAmount));
  const toAmount = raw
    .mul(10_000 - 250)
    .div(10_000)
    .toDecimalPlaces(ETH_PRECISION, Decimal.ROUND_DOWN);
  const profit = raw.minus(toAmount);
  await page.goto(`/dashboard/orders?channel=${encodeURIComponent(`widget:${widgetId}`)}`);
  const row = page.locator(`[data-testid="order-row"][data-order-id="${orderId}"]`).filter({ visible: true });
  await expect(row).toContainText("finished");
  await expect(page.locator('[data-testid="order-row"]').filter({ visible: true })).toHaveCount(1);
  await page.goto(`/dashboard/orders/${orderId}`);
  await expect(page.getByTestId("order-markup")).toHaveText("250 bps (2.5%)");
  await expect(page.getByTestId("order-channel")).toHaveText("Widget Shop widget");
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text
  expect((await page.getByTestId("order-profit").innerText()).replace(/,/g, "")).toBe(`${profit.toFixed()} ETH`);
  await page.goto("/dashboard");
  const channel = page.locator(`[data-testid="channel-row"][data-channel="widget:${widgetId}"]`);
  await expect(channel.getByTestId("channel-orders")).toContainText("1");
  await expect(channel.getByTestId("channel-profit")).toContainText(`${profit.toFixed()} ETH`);

  // A site not on the list: the browser refuses to frame the widget.
  const other = await resellerSiteOn(appOrigin, `${appOrigin}/w/${widgetId}`);
  const outsider = await (await browser.newContext()).newPage();
  const served = outsider.waitForResponse((r) => r.url().startsWith(`${appOrigin}/w/${widgetId}`));
  await outsider.goto(other.url);
  // The server answered the frame's request (with its CSP) ...
  const answer = await served;
  expect(answer.status()).toBe(200);
  expect(answer.headers()["content-security-policy"]).toContain(`frame-ancestors 'self' ${allowed.url}`);
  // ... and the browser refused to show it: Chromium puts its error page in the frame instead.
  await expect
    .poll(() =>
      outsider
        .frames()
        .filter((f) => f !== outsider.mainFrame())
        .map((f) => f.url()),
    )
    .toEqual(["chrome-error://chromewebdata/"]);
  await expect(outsider.frameLocator("#widget").getByTestId("amount")).toHaveCount(0);
  // The listed site still frames it.
  await visitor.reload();
  await expect(visitor.frameLocator("#widget").getByTestId("amount")).toBeVisible();

  await Promise.all([allowed.close(), other.close(), user.close(), fresh.close(), api.dispose()]);
});

/** A site on a port of its own (its own origin) whose page embeds `src` (settable afterwards) with the resize snippet. */
async function resellerSiteOn(appOrigin: string, src: string) {
  let current = src;
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><html lang="en"><head><title>A reseller's site</title></head><body>
<h1>Swap here</h1>
<iframe id="widget" src="${current}" title="Exchange" style="width:100%;max-width:480px;height:640px;border:0"></iframe>
<script>
addEventListener("message", function (e) {
  if (e.origin !== "${appOrigin}" || !e.data || e.data.type !== "reseller-widget:height") return;
  var f = document.getElementById("widget");
  if (f.contentWindow === e.source) f.style.height = e.data.height + "px";
});
</script></body></html>`);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    setSrc: (s: string) => {
      current = s;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

test("a key's own markup, set on the Keys page, applies to its next estimate", async ({ page, baseURL }) => {
  await signIn(page, newWallet());
  await setMarkupInUi(page, 150);
  const key = await createKeyInUi(page, "Channel key");
  await page.getByRole("button", { name: "Done" }).click();
  const api = await apiContext(baseURL!);
  expect((await estimate(api, key)).body.fee).toBe("1.75%");
  const field = page.getByTestId("key-markup").filter({ visible: true });
  await field.fill("400");
  await field.press("Enter");
  await expect(page.getByText("Saved").filter({ visible: true })).toBeVisible();
  expect((await estimate(api, key)).body.fee).toBe("4.25%");
  await field.fill("");
  await field.press("Enter");
  await expect.poll(async () => (await estimate(api, key)).body.fee).toBe("1.75%");
  await api.dispose();
});

test("axe finds no serious or critical violations on the hosted page, the widget, the status page and the new dashboard pages; 390 px fits", async ({
  page,
  browser,
}) => {
  await signIn(page, newWallet());
  const widgetId = await createWidgetInUi(page, { name: "Axe widget", markup: 100, origins: [] });
  await expect(page.getByTestId("widget-preview")).toBeVisible();
  await noSeriousViolations(page, "widgets page");
  await page.goto("/dashboard/keys");
  await noSeriousViolations(page, "keys page", { frameless: true });
  await page.goto("/dashboard");
  await expect(page.getByRole("heading", { name: "Channels" })).toBeVisible();
  await noSeriousViolations(page, "overview", { frameless: true });
  const resellerId = await resellerIdOf(page);

  for (const width of [1280, 390]) {
    const ctx = await browser.newContext({ viewport: { width, height: 800 } });
    const p = await ctx.newPage();
    for (const [what, url] of [
      ["hosted page", `/x/${resellerId}`],
      ["widget", `/w/${widgetId}?theme=dark&accent=f59e0b`],
    ] as const) {
      await p.goto(new URL(url, page.url()).toString());
      await expect(p.getByTestId("amount")).toBeVisible();
      await p.getByTestId("amount").fill("0.1");
      await expect(p.getByTestId("estimate-to")).toBeVisible();
      await noSeriousViolations(p, `${what} at ${width}px`, { frameless: true });
      if (what === "widget") {
        // The URL's theme and accent: dark page, the accent on the main button.
        expect(await p.getByTestId("create-order").evaluate((b) => getComputedStyle(b).backgroundColor)).toBe("rgb(245, 158, 11)");
        expect(await p.locator("main").evaluate((m) => getComputedStyle(m.parentElement as Element).backgroundColor)).toBe(
          await p.evaluate(() => {
            const probe = document.createElement("div");
            probe.className = "bg-zinc-950";
            document.body.append(probe);
            const c = getComputedStyle(probe).backgroundColor;
            probe.remove();
            return c;
          }),
        );
      }
      expect(await p.evaluate(() => document.documentElement.scrollWidth), `${what} at ${width}px scrolls sideways`).toBeLessThanOrEqual(
        width,
      );
      // The lists name each currency in full (no cut at 390 px): the chosen one's whole name shows.
      await p.getByTestId("pick-from").selectOption("trx");
      await expect(p.getByTestId("pick-from").locator("option:checked")).toHaveText("TRX – TRON");
      await noSeriousViolations(p, `${what} picker at ${width}px`, { frameless: true });
    }
    await ctx.close();
  }
});

test("the page's estimate follows its input: the last amount's answer, a refusal's reason, a fixed rate's countdown, an amount to receive", async ({
  page,
}) => {
  await signIn(page, newWallet());
  const resellerId = await resellerIdOf(page);
  const asked: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/hosted/estimate")) asked.push(new URL(r.url()).searchParams.get("amount") ?? "");
  });
  // The page's own clock, paused and moved on by hand: a new amount must be asked for because it
  // is new, not found later by the 15 s refresh of a floating estimate (never reached here).
  await page.clock.install();
  await page.goto(`/x/${resellerId}?from=btc&to=eth`);
  await page.clock.pauseAt(await page.evaluate(() => Date.now() + 1000));
  const shownFor = async () => {
    await page.clock.runFor(100);
    return page
      .getByTestId("estimate-from")
      .textContent({ timeout: 1000 })
      .catch(() => null);
  };
  await page.getByTestId("amount").fill("0.1");
  await expect.poll(shownFor).toBe("0.1 BTC");
  await page.getByTestId("amount").fill("0.2");
  await expect.poll(shownFor).toBe("0.2 BTC");
  // One request per settled amount (the query key).
  expect(asked.filter((a) => a === "0.2")).toHaveLength(1);
  await page.clock.resume();
  // A refusal says why, and no estimate of an earlier amount stays shown beside it.
  await page.getByTestId("amount").fill("0.000001");
  await expect(page.getByTestId("amount-message")).toContainText(/^The minimum for Bitcoin \(BTC\) → Ethereum \(ETH\) is [0-9.]+ BTC\.$/);
  await expect(page.getByTestId("estimate-from")).toHaveCount(0);
  await page.getByTestId("amount").fill("x");
  await expect(page.getByTestId("amount-message")).toContainText("Enter an amount such as 0.1");
  // A fixed rate: the quote's countdown.
  await page.getByTestId("amount").fill("0.1");
  await page.getByRole("radio", { name: /Fixed/ }).check();
  await expect(page.getByTestId("quote-countdown")).toHaveText(/^[0-9]+:[0-5][0-9]$/);
  // An amount to receive: the estimate says what to send for at least that much.
  await page.getByRole("radio", { name: "Amount to receive" }).check();
  await page.getByTestId("amount").fill("1");
  const received = async () => new Decimal(((await page.getByTestId("estimate-to").textContent()) ?? "").split(" ")[0] || "0");
  await expect.poll(async () => received().then((r) => r.gte(1) && r.lt("1.01"))).toBe(true);
});
