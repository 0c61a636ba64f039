import { expect, test } from "@playwright/test";
import { ethAddress, newWallet, resellerIdOf, signIn } from "./helpers";

// The end user's path with JavaScript off, as in Tor Browser's "Safest" level (issue 51): the
// exchange page shows the pair's limits, refuses a bad address beside its field with the input
// kept, shows the estimate before the order, makes the order, lands on the status page
// (/o/<id>?t=<secret>), simulates the sandbox's deposit and follows the order (the page's meta
// refresh) to finished, with the payout address and the amount sent. No cookie, no request to
// another host, no Referer. Runs against both servers (projects nojs-sqlite, nojs-postgres).

test("without JavaScript: limits, a refused address beside its field, the estimate, the order, the deposit, finished", async ({
  browser,
  baseURL,
}) => {
  const origin = new URL(baseURL!).origin;
  // The reseller signs in (the dashboard needs a wallet, and so JavaScript) in a context of its own.
  const dash = await browser.newContext();
  const dashPage = await dash.newPage();
  await signIn(dashPage, newWallet());
  const resellerId = await resellerIdOf(dashPage);
  await dash.close();

  const ctx = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 800 } });
  const page = await ctx.newPage();
  const hosts = new Set<string>();
  page.on("request", (r) => {
    if (!r.url().startsWith("data:")) hosts.add(new URL(r.url()).origin);
  });

  const first = await page.goto(`/x/${resellerId}?from=btc&to=eth`);
  expect(first!.status()).toBe(200);
  expect(first!.headers()["referrer-policy"]).toBe("no-referrer");
  expect(first!.headers()["onion-location"]).toBeUndefined();
  expect(first!.headers()["set-cookie"]).toBeUndefined();
  // No script runs: the selects, the radios and the buttons are plain HTML.
  await expect(page.getByTestId("pick-from")).toHaveValue("btc");
  await expect(page.getByTestId("pick-to")).toHaveValue("eth");
  // The pair's limits, before any amount.
  await expect(page.getByTestId("amount-message")).toHaveText(/^Send between [0-9.]+ and [0-9.]+ BTC\.$/);

  // Too little: the minimum, named by currency names, beside the amount.
  await page.getByTestId("amount").fill("0.000001");
  await page.getByTestId("update-estimate").click();
  await expect(page.getByTestId("amount-message")).toHaveText(/^The minimum for Bitcoin \(BTC\) → Ethereum \(ETH\) is [0-9.]+ BTC\.$/);
  await expect(page.getByTestId("amount")).toHaveValue("0.000001");

  // The estimate: rate, amount received, limits, before any order.
  await page.getByTestId("amount").fill("0.1");
  await page.getByTestId("update-estimate").click();
  await expect(page.getByTestId("estimate-from")).toHaveText("0.1 BTC");
  await expect(page.getByTestId("estimate-to")).toHaveText(/^[0-9.]+ ETH$/);
  await expect(page.getByTestId("estimate-rate")).toHaveText(/^1 BTC = [0-9.]+ ETH$/);
  await expect(page.getByTestId("estimate-limits")).toHaveText(/^[0-9.]+ – [0-9.]+ BTC$/);

  // A bad address: refused beside its field, every input kept, no order made, and the address never in a URL.
  await page.getByTestId("address").fill("not-an-address");
  await page.getByTestId("create-order").click();
  await expect(page.getByTestId("address-check")).toHaveText("This is not a valid Ethereum (ETH) address.");
  await expect(page.getByTestId("address")).toHaveValue("not-an-address");
  await expect(page.getByTestId("address")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByTestId("amount")).toHaveValue("0.1");
  await expect(page.getByTestId("estimate-from")).toHaveText("0.1 BTC");
  expect(page.url()).toBe(`${origin}/x/${resellerId}?from=btc&to=eth`);

  // The order: the browser lands on its status page, the secret in the query.
  const payout = ethAddress();
  await page.getByTestId("address").fill(payout);
  await page.getByTestId("create-order").click();
  await page.waitForURL(/\/o\/[0-9a-f]{24}\?t=[1-9A-HJ-NP-Za-km-z]{20,}$/);
  expect(page.url()).not.toContain(payout);
  const statusUrl = page.url();
  await expect(page.getByTestId("order-status")).toHaveText("Waiting for your deposit");
  expect(await page.getByTestId("deposit-qr").getAttribute("src")).toMatch(/^data:image\/png;base64,/);
  await expect(page.getByTestId("deposit-qr")).toHaveAttribute("alt", /^QR code of the deposit address /);
  // The deadline as a date with its zone (no countdown without JavaScript).
  await expect(page.getByTestId("deadline")).toHaveText(/^Expires at .*20\d\d.*\d\d:\d\d UTC\.$/);
  await expect(page.getByTestId("payout-address")).toHaveText(payout);
  await expect(page.getByTestId("status-link-text")).toHaveValue(new URL(statusUrl).pathname + new URL(statusUrl).search);
  // It reloads itself while the order is open.
  expect(await page.content()).toMatch(/<meta http-equiv="refresh" content="([5-9]|[12][0-9]|30)">/);

  // The sandbox's deposit: a form; back on the status page, which follows the order by itself to the end.
  await page.getByTestId("simulate-deposit").click();
  await page.waitForURL(statusUrl);
  await expect(page.getByTestId("order-status")).toHaveText("Finished", { timeout: 120_000 });
  await expect(page.getByTestId("payout-address")).toHaveText(payout);
  await expect(page.getByTestId("amount-sent")).toHaveText(/^[0-9.]+ ETH$/);
  await expect(page.getByTestId("amount-received")).toHaveText("0.1 BTC");
  await expect(page.locator('[data-testid="timeline"] [data-step="finished"]')).toContainText(/\d\d:\d\d UTC/);
  // Final: no more reloads.
  expect(await page.content()).not.toContain('http-equiv="refresh"');

  // Nothing but the app itself was asked for anything, and nothing set a cookie.
  expect([...hosts]).toEqual([origin]);
  expect(await ctx.cookies()).toEqual([]);

  // Without its secret, or with a wrong one: the 404 of an unknown order, with no dashboard link.
  const id = new URL(statusUrl).pathname.slice(3);
  for (const url of [`/o/${id}`, `/o/${id}?t=${"A".repeat(32)}`, "/o/000000000000000000000000?t=x"]) {
    const r = await page.goto(url);
    expect(r!.status(), url).toBe(404);
    await expect(page.getByRole("heading", { name: "Order not found" })).toBeVisible();
    await expect(page.getByRole("link", { name: /dashboard/i })).toHaveCount(0);
  }
  await ctx.close();
});
