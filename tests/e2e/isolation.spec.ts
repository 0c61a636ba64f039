import fs from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { parse } from "csv-parse/sync";
import {
  apiContext,
  createKeyInUi,
  createOrder,
  driveToFinished,
  ethAddress,
  keyHeader,
  newWallet,
  setMarkupInUi,
  signIn,
} from "./helpers";

// Everything in the dashboard is scoped to the signed-in wallet.

test("a second wallet sees none of the first wallet's keys, orders or profit", async ({ browser, baseURL }) => {
  const api = await apiContext(baseURL!);

  // Wallet A: a key, a finished order, profit.
  const ctxA = await browser.newContext();
  const pageA = await ctxA.newPage();
  await signIn(pageA, newWallet());
  await setMarkupInUi(pageA, 200);
  const keyA = await createKeyInUi(pageA, "A's key");
  const orderA = await createOrder(api, keyA, { from: "btc", to: "eth", amount: "0.1", address: ethAddress() });
  await driveToFinished(api, keyA, orderA.id);
  await pageA.goto("/dashboard");
  await expect(pageA.getByTestId("stat-available")).not.toContainText("$0.00");

  // Wallet B, in its own browser context.
  const ctxB = await browser.newContext();
  const pageB = await ctxB.newPage();
  await signIn(pageB, newWallet());
  await expect(pageB.getByTestId("stat-available")).toContainText("$0.00");
  await expect(pageB.getByTestId("stat-orders")).toContainText("0");
  await expect(pageB.getByText("No profit yet")).toBeVisible();

  await pageB.goto("/dashboard/keys");
  await expect(pageB.getByText("No API keys yet")).toBeVisible();
  await expect(pageB.getByText(keyA.slice(0, 17))).toHaveCount(0);
  await pageB.getByLabel("Show revoked keys").check();
  await expect(pageB.getByText("No API keys yet")).toBeVisible();

  await pageB.goto("/dashboard/orders");
  await expect(pageB.getByText("No orders yet")).toBeVisible();
  await pageB.goto(`/dashboard/orders?q=${orderA.id}`);
  await expect(pageB.getByText("No orders match")).toBeVisible();

  // A's order by its URL: not found for B, exactly like an id that does not exist.
  await pageB.goto(`/dashboard/orders/${orderA.id}`);
  await expect(pageB.getByTestId("not-found")).toBeVisible();
  await expect(pageB.getByText(orderA.payinAddress)).toHaveCount(0);

  // The CSV downloads, from each wallet's Orders and Overview pages: A's has its order, B's nothing.
  const csvOf = async (page: Page, url: string, testId: string) => {
    await page.goto(url);
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId(testId).click()]);
    return parse(fs.readFileSync((await download.path())!, "utf8"), { columns: true }) as Record<string, string>[];
  };
  const ordersA = await csvOf(pageA, "/dashboard/orders", "export-orders");
  expect(ordersA.map((r) => r.id)).toEqual([orderA.id]);
  expect(ordersA[0]).toMatchObject({ status: "finished", markup_bps: "200", api_key_name: "A's key" });
  expect((await csvOf(pageA, "/dashboard", "export-ledger")).map((r) => r.kind).sort()).toEqual(
    ["order_profit_pending", "order_profit_release", "order_profit_settle"].sort(),
  );
  expect(await csvOf(pageB, "/dashboard/orders", "export-orders")).toEqual([]);
  expect(await csvOf(pageB, "/dashboard", "export-ledger")).toEqual([]);
  expect(await (await pageB.request.get(`/dashboard/export/orders?q=${orderA.id}`)).text()).not.toContain(orderA.id);

  // And through the API: B's key cannot read A's order.
  const keyB = await createKeyInUi(pageB, "B's key");
  expect((await api.get(`/api/v1/exchange/${orderA.id}`, { headers: keyHeader(keyB) })).status()).toBe(404);

  // A still sees its own.
  await pageA.goto("/dashboard/orders");
  await expect(pageA.locator(`[data-order-id="${orderA.id}"]`).filter({ visible: true })).toBeVisible();

  await ctxA.close();
  await ctxB.close();
  await api.dispose();
});
