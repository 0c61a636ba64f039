import { expect, type Page, test } from "@playwright/test";
import Decimal from "decimal.js";
import {
  apiContext,
  createKeyInUi,
  createOrder,
  driveToFinished,
  estimate,
  ethAddress,
  keyHeader,
  newWallet,
  setMarkupInUi,
  signIn,
} from "./helpers";

// The reseller's journey against the real server: keys and markup set in the dashboard
// change what the v1 API answers, and orders made through the API show up in the dashboard.

const ETH_PRECISION = 8;

/** The API's markup rule: toAmount = floor(raw * (1 - bps/10000)) at the destination precision. */
function withMarkup(raw: number, bps: number): string {
  return new Decimal(String(raw))
    .mul(10_000 - bps)
    .div(10_000)
    .toDecimalPlaces(ETH_PRECISION, Decimal.ROUND_DOWN)
    .toFixed();
}
const exact = (n: number) => new Decimal(String(n)).toFixed();

/** The one visible element among the phone and desktop renderings. */
const visible = (page: Page, testId: string) => page.getByTestId(testId).filter({ visible: true });

test("create a key, see the markup in estimates, change it and see the next estimate follow", async ({ page, baseURL }) => {
  const wallet = newWallet();
  await signIn(page, wallet);
  await setMarkupInUi(page, 150);
  // The live example on the settings page uses the same rule.
  await expect(page.getByTestId("markup-example")).toContainText("platform 0.25% + your 1.5%");
  const key = await createKeyInUi(page, "Test app");
  await expect(visible(page, "key-row")).toHaveCount(1);

  const api = await apiContext(baseURL!);
  const pub = await estimate(api, undefined); // keyless: the public tier, no markup
  const mine = await estimate(api, key);
  expect(pub.status).toBe(200);
  expect(mine.status).toBe(200);
  expect(pub.body.fee).toBe("0.25%");
  expect(mine.body.fee).toBe("1.75%");
  expect(exact(mine.body.toAmount)).toBe(withMarkup(pub.body.toAmount, 150));

  await setMarkupInUi(page, 300);
  const after = await estimate(api, key);
  expect(after.body.fee).toBe("3.25%");
  expect(exact(after.body.toAmount)).toBe(withMarkup(pub.body.toAmount, 300));
  expect(after.body.toAmount).toBeLessThan(mine.body.toAmount);

  // The page refuses a markup above the cap before sending it.
  await page.getByLabel("Markup in basis points").fill("1001");
  await expect(page.getByText("The highest markup allowed is 1000 bps")).toBeVisible();
  await expect(page.getByRole("button", { name: "Save markup" })).toBeDisabled();
  await api.dispose();
});

test("an order made with the key, driven to finished, shows in Orders and its profit in the Overview", async ({ page, baseURL }) => {
  const wallet = newWallet();
  await signIn(page, wallet);
  await setMarkupInUi(page, 150);
  const key = await createKeyInUi(page, "Shop");
  const api = await apiContext(baseURL!);

  const order = await createOrder(api, key, { from: "btc", to: "eth", amount: "0.1", address: ethAddress() });
  expect(order.status).toBe("waiting");
  // A markup change applies to new orders only.
  await setMarkupInUi(page, 500);

  await page.goto("/dashboard/orders");
  const row = page.locator(`[data-testid="order-row"][data-order-id="${order.id}"]`).filter({ visible: true });
  await expect(row).toContainText("waiting");

  await driveToFinished(api, key, order.id);
  // The list polls; the row turns finished without a reload.
  await expect(row).toContainText("finished");

  // Filter by state and search by id.
  await page.getByLabel("State").selectOption("failed");
  await expect(page.getByText("No orders match")).toBeVisible();
  await page.getByLabel("State").selectOption("finished");
  await expect(row).toBeVisible();
  await page.getByLabel("Order id").fill(order.id.slice(0, 10));
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(new RegExp(`q=${order.id.slice(0, 10)}`));
  await expect(row).toBeVisible();
  await page.getByLabel("Order id").fill("ffffffffffffffff");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page.getByText("No orders match")).toBeVisible();

  // Detail: the timeline reached every state; markup is the one at creation time.
  await page.goto(`/dashboard/orders/${order.id}`);
  await expect(page.getByTestId("order-id")).toHaveText(order.id);
  for (const s of ["waiting", "confirming", "exchanging", "sending", "finished"])
    await expect(page.locator(`[data-testid="timeline"] [data-step="${s}"]`)).toHaveAttribute("data-reached", "true");
  await expect(page.getByTestId("order-markup")).toHaveText("150 bps (1.5%)");
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text, not the DOM property
  const profitText = (await page.getByTestId("order-profit").innerText()).replace(/,/g, "");
  const profit = new Decimal(profitText.split(" ")[0]);
  expect(profitText).toMatch(/ ETH$/);
  // profit = raw - toAmount, and toAmount = raw * (1 - 1.5%): profit ~= toAmount * 150 / 9850.
  const expected = new Decimal(String(order.toAmount)).mul(150).div(9850);
  expect(profit.minus(expected).abs().lte("0.00000002")).toBe(true);

  // Overview: the profit is available, in ETH and in USD; one finished order.
  await page.goto("/dashboard");
  const ethRow = visible(page, "balance-row-eth");
  await expect(ethRow.getByTestId("available")).toHaveText(profit.toFixed());
  await expect(page.getByTestId("stat-available")).not.toContainText("$0.00");
  // Every USD figure says where and when its price came from (the simulated engine's live rates).
  await expect(page.getByTestId("price-notes")).toContainText(/ETH price: simulated engine \(snapshot moved by the sandbox\), .+ UTC/);
  await expect(page.getByTestId("count-finished")).toContainText("1");
  await expect(page.getByTestId("earnings-chart")).toBeVisible();
  await api.dispose();
});

test("rotate a key: the old key gets 401 at once, the new one works; a revoked key gets 401", async ({ page, baseURL }) => {
  const wallet = newWallet();
  await signIn(page, wallet);
  const oldKey = await createKeyInUi(page, "Rotating");
  await page.getByRole("button", { name: "Done" }).click();
  const api = await apiContext(baseURL!);
  expect((await estimate(api, oldKey)).status).toBe(200);

  await page.getByRole("button", { name: "Rotate key Rotating" }).filter({ visible: true }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Rotate key" }).click();
  await expect(page.getByTestId("new-key-panel")).toContainText("no longer works");
  const newKey = await page.getByTestId("new-key").inputValue();
  expect(newKey).not.toBe(oldKey);
  expect(newKey).toMatch(/^rsk_live_/);

  const old = await estimate(api, oldKey);
  expect(old.status).toBe(401);
  expect(old.body.error?.code).toBe("INVALID_API_KEY");
  expect((await estimate(api, newKey)).status).toBe(200);
  // The list shows only the new key, by its prefix.
  await expect(visible(page, "key-row")).toHaveCount(1);
  await expect(visible(page, "key-row")).toHaveAttribute("data-prefix", newKey.slice(0, 17));

  // Revoke it: refused from then on.
  await page.getByRole("button", { name: "Revoke key Rotating" }).filter({ visible: true }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
  await expect(page.getByText("No API keys yet")).toBeVisible();
  expect((await estimate(api, newKey)).status).toBe(401);
  const order = await api.post("/api/v1/exchange", {
    headers: keyHeader(newKey),
    data: { from: "btc", to: "eth", amount: "0.1", address: ethAddress() },
  });
  expect(order.status()).toBe(401);
  await api.dispose();
});

test("keys can be managed with the keyboard alone", async ({ page }) => {
  const wallet = newWallet();
  await signIn(page, wallet);
  await page.goto("/dashboard/keys");
  await page.getByLabel("Key name").focus();
  await page.keyboard.type("Keyboard key");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("new-key-panel")).toBeFocused();
  // Tab onward to the row's Rotate button and open the dialog with Enter; Escape closes it.
  const rotate = page.getByRole("button", { name: "Rotate key Keyboard key" }).filter({ visible: true });
  for (let i = 0; i < 15 && !(await rotate.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
  await expect(rotate).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("dialog")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toBeHidden();
});
