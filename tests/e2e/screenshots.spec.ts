import { expect, type Page, test } from "@playwright/test";
import {
  apiContext,
  createKeyInUi,
  createOrder,
  driveToFinished,
  ethAddress,
  injectWallet,
  keyHeader,
  newWallet,
  setMarkupInUi,
  signIn,
} from "./helpers";

// Captures every page, with an account that has keys and orders in several states, at
// desktop width and at phone width (390x844). At phone width each page is also checked for
// sideways overflow. The pictures go to test-results/screenshots/ (ignored by git), or, with
// `npm run screenshots` (UPDATE_SCREENSHOTS=1), over the committed docs/screenshots/ (README
// material): a test run never changes the tree.

const DIR = process.env.UPDATE_SCREENSHOTS === "1" ? "docs/screenshots" : "test-results/screenshots";

/**
 * Network idle, waited for at most 15 s: it only lets late images and fonts arrive before a
 * picture. A loaded CI run (2026-11-25) never reached it on the Widgets page (a request kept open,
 * 176 s, cause not found; the test alone reached it in seconds), so it is not a condition:
 * what each picture must show is asserted before it.
 */
const settle = (page: Page) => page.waitForLoadState("networkidle", { timeout: 15_000 }).catch(() => {});

async function shoot(page: Page, name: string) {
  await settle(page);
  await page.screenshot({ path: `${DIR}/${name}.png`, fullPage: true, animations: "disabled" });
}

/**
 * Once the page has settled (network idle, then up to 5 s), nothing is wider than the window.
 * One CI run (2026-11-23, machine busy) measured /dashboard at 625 px right after navigating at
 * 390 px; 5 local runs never did. The cause was not found (not the chart's first 600 px draw:
 * forcing it does not widen the page), so this checks the settled page, not the first instant.
 */
async function noSidewaysScroll(page: Page) {
  await settle(page);
  const widths = () => page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  await expect
    .poll(
      async () => {
        const { scrollWidth, innerWidth } = await widths();
        return scrollWidth <= innerWidth ? "fits" : `${scrollWidth}px wide at ${innerWidth}px`;
      },
      { message: `${page.url()} scrolls sideways`, timeout: 60_000 },
    )
    .toBe("fits");
}

test("screenshots of every page, desktop and phone", async ({ browser, baseURL }) => {
  test.setTimeout(180_000);
  const signin = await browser.newPage();
  await injectWallet(signin, newWallet());
  await signin.goto("/signin");
  await shoot(signin, "signin");
  await signin.setViewportSize({ width: 390, height: 844 });
  await noSidewaysScroll(signin);
  await shoot(signin, "signin-phone");
  await signin.close();

  const page = await browser.newPage();
  await signIn(page, newWallet());
  await setMarkupInUi(page, 150);
  const key = await createKeyInUi(page, "Wallet app (production)");
  await page.getByRole("button", { name: "Done" }).click();
  await createKeyInUi(page, "Telegram bot");
  await page.getByRole("button", { name: "Done" }).click();

  const api = await apiContext(baseURL!);
  const finished = [
    { from: "btc", to: "eth", amount: "0.12" },
    { from: "ltc", to: "usdc", amount: "25" },
    { from: "xmr", to: "eth", amount: "3.5" },
    { from: "eth", to: "usdterc20", amount: "1.8" },
    { from: "btc", to: "usdc", amount: "0.05" },
  ];
  // Made in this order (the list's), then driven side by side: the sandbox steps each on its own.
  const made = [];
  for (const o of finished) made.push(await createOrder(api, key, { ...o, address: ethAddress() }));
  await Promise.all(made.map((order) => driveToFinished(api, key, order.id)));
  // One that fails (deposit below the pair's minimum) and one still waiting for its deposit.
  const failing = await createOrder(api, key, { from: "eth", to: "usdc", amount: "0.5", address: ethAddress() });
  await api.post(`/api/v1/sandbox/exchange/${failing.id}/deposit`, { headers: keyHeader(key), data: { amount: "0.001" } });
  await expect
    .poll(
      async () =>
        ((await (await api.get(`/api/v1/exchange/${failing.id}`, { headers: keyHeader(key) })).json()) as { status: string }).status,
    )
    .toBe("failed");
  const waiting = await createOrder(api, key, { from: "btc", to: "eth", amount: "0.03", address: ethAddress() });

  // One withdrawal of the ETH profit (simulated sender), confirmed by the injected wallet's EIP-712 signature.
  await page.goto("/dashboard/withdrawals");
  await page.getByLabel("All available balances").uncheck();
  await page.getByRole("checkbox", { name: "eth", exact: true }).check();
  await page.getByRole("button", { name: "Review withdrawal" }).click();
  await page.getByRole("button", { name: "Sign and withdraw" }).click();
  await expect(page.getByTestId("withdrawal-row").first().locator("[data-status]")).toHaveText("confirmed");

  const pages: [string, string][] = [
    ["overview", "/dashboard"],
    ["orders", "/dashboard/orders"],
    ["order-detail", `/dashboard/orders/${await firstFinished(page)}`],
    ["order-detail-waiting", `/dashboard/orders/${waiting.id}`],
    ["order-detail-failed", `/dashboard/orders/${failing.id}`],
    ["withdrawals", "/dashboard/withdrawals"],
    ["keys", "/dashboard/keys"],
    ["settings", "/dashboard/settings"],
    ["docs", "/dashboard/docs"],
  ];
  for (const [name, path] of pages) {
    await page.goto(path);
    await shoot(page, name);
  }
  // The one-time key panel, as a reseller sees it right after creating a key.
  await page.goto("/dashboard/keys");
  await page.getByLabel("Key name").fill("Staging");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("new-key-panel")).toBeVisible();
  await shoot(page, "keys-created");

  await page.setViewportSize({ width: 390, height: 844 });
  for (const [name, path] of pages) {
    await page.goto(path);
    await noSidewaysScroll(page);
    if (!name.startsWith("order-detail-")) await shoot(page, `${name}-phone`);
  }
  await api.dispose();
});

async function firstFinished(page: Page): Promise<string> {
  await page.goto("/dashboard/orders?status=finished");
  const id = await page.locator('[data-testid="order-row"]').first().getAttribute("data-order-id");
  if (!id) throw new Error("no finished order listed");
  return id;
}

test("screenshots of the hosted exchange page, its deposit screen and the Widgets page, desktop and phone", async ({ browser }) => {
  test.setTimeout(180_000);
  const page = await browser.newPage();
  await signIn(page, newWallet());
  await page.goto("/dashboard/widgets");
  await page.getByTestId("new-widget").click();
  await page.getByTestId("widget-name").fill("Blog widget");
  await page.getByTestId("widget-markup").fill("200");
  await page.getByTestId("widget-origins").fill("https://blog.example.com");
  await page.getByTestId("create-widget").click();
  await expect(page.getByTestId("widget-card")).toBeVisible();
  await expect(page.frameLocator('[data-testid="widget-preview"]').getByTestId("amount")).toBeVisible();
  await shoot(page, "widgets");
  const referral = (await page.locator("figure", { hasText: "Referral link" }).first().locator("code").textContent()) ?? "";
  const hostedPath = new URL(referral).pathname;

  for (const [suffix, viewport] of [
    ["", { width: 1280, height: 800 }],
    ["-phone", { width: 390, height: 844 }],
  ] as const) {
    const p = await browser.newPage({ viewport });
    await p.goto(`${hostedPath}?from=btc&to=eth&amount=0.05`);
    await expect(p.getByTestId("estimate-to")).toBeVisible();
    await p.getByTestId("address").fill(ethAddress());
    await expect(p.getByTestId("address-check")).toHaveText("Valid address.");
    await noSidewaysScroll(p);
    await shoot(p, `hosted${suffix}`);
    await p.getByTestId("create-order").click();
    await expect(p.getByTestId("deposit-qr")).toBeVisible();
    await noSidewaysScroll(p);
    await shoot(p, `hosted-deposit${suffix}`);
    await p.close();
  }
});

/** A 96x96 logo drawn by Chromium itself (a rounded square with a letter), as PNG bytes. */
async function drawnLogo(page: Page): Promise<Buffer> {
  await page.setContent(
    `<div id="logo" style="width:96px;height:96px;border-radius:22px;background:#0f766e;color:#fff;display:flex;align-items:center;justify-content:center;font:700 56px sans-serif">A</div>`,
  );
  return page.locator("#logo").screenshot({ omitBackground: true });
}

test("screenshots of the hosted page without JavaScript in two languages, and of a branded widget", async ({ browser }) => {
  test.setTimeout(180_000);
  const page = await browser.newPage();
  const logo = await drawnLogo(page);
  await signIn(page, newWallet());
  await page.goto("/dashboard/widgets");
  // The reseller's brand (issue 51): name, logo, accent, support contact, terms.
  await page.getByTestId("brand-name-input").fill("Acme Swap");
  await page.getByTestId("brand-accent-input").fill("#0f766e");
  await page.getByTestId("brand-support-input").fill("@acme_swap_support");
  await page.getByTestId("brand-terms-input").fill("https://acme.example/terms");
  await page.getByTestId("brand-logo-input").setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: logo });
  await page.getByTestId("brand-save").click();
  await expect(page.getByText("Saved.")).toBeVisible();
  await page.getByTestId("new-widget").click();
  await page.getByTestId("widget-name").fill("Acme Swap");
  await page.getByTestId("create-widget").click();
  const card = page.getByTestId("widget-card");
  await expect(card).toBeVisible();
  const widgetId = await card.getAttribute("data-widget-id");
  const referral = (await page.locator("figure", { hasText: "Referral link" }).first().locator("code").textContent()) ?? "";
  const hostedPath = new URL(referral).pathname;

  // The widget as a site embeds it (JavaScript on), branded.
  const w = await browser.newPage({ viewport: { width: 480, height: 900 } });
  // A widget keeps its own accent (a widget setting, or its URL parameter): here the brand's.
  await w.goto(`/w/${widgetId}?from=btc&to=eth&amount=0.05&accent=0f766e`);
  await expect(w.getByTestId("brand-name")).toHaveText("Acme Swap");
  await expect.poll(() => w.getByTestId("brand-logo").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(96);
  await expect(w.getByTestId("estimate-to")).toBeVisible();
  await shoot(w, "widget-branded");
  await w.close();

  // The hosted page with JavaScript off (Tor Browser's safest mode), in English and in Spanish.
  const noJs = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 800 } });
  for (const lang of ["en", "es"]) {
    const p = await noJs.newPage();
    await p.goto(`${hostedPath}?lang=${lang}&from=btc&to=eth&amount=0.05`);
    await expect(p.locator("html")).toHaveAttribute("lang", lang);
    await expect(p.getByTestId("brand-name")).toHaveText("Acme Swap");
    await expect(p.getByTestId("estimate-to")).toBeVisible();
    await shoot(p, `hosted-nojs-${lang}`);
    await p.close();
  }
  await noJs.close();
});
