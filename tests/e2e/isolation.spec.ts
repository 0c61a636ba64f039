import { expect, test } from "@playwright/test";
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

  // The dashboard's read endpoints, with B's session cookie.
  expect((await pageB.request.get(`/dashboard/api/orders/${orderA.id}`)).status()).toBe(404);
  expect(await (await pageB.request.get("/dashboard/api/orders")).json()).toMatchObject({ total: 0, items: [] });
  expect(await (await pageB.request.get("/dashboard/api/keys?revoked=1")).json()).toEqual([]);
  const ov = (await (await pageB.request.get("/dashboard/api/overview?days=7")).json()) as { balances: unknown[]; ordersInPeriod: number };
  expect(ov.balances).toEqual([]);
  expect(ov.ordersInPeriod).toBe(0);

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
