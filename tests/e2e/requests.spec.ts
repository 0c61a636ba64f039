import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { apiContext, createKeyInUi, ethAddress, keyHeader, newWallet, signIn } from "./helpers";

// The developer's pages of issue 53 against the real server: the Requests page (the request
// log of the reseller's keys, with its filters) and a webhook delivery resent from the log.

test("the Requests page shows the key's requests, filtered by status class and route, never the key or a full address", async ({
  page,
  baseURL,
}) => {
  const wallet = newWallet();
  await signIn(page, wallet);
  const key = await createKeyInUi(page, "Requests app");
  const api = await apiContext(baseURL!);
  const address = ethAddress();
  expect((await api.get("/api/v1/currencies", { headers: keyHeader(key) })).status()).toBe(200);
  const bad = await api.post("/api/v1/exchange", {
    headers: keyHeader(key),
    data: { from: "btc", to: "eth", amount: "0.1", address: "not-an-address" },
  });
  expect(bad.status()).toBe(422);
  const missing = await api.get(`/api/v1/exchange/${address}`, { headers: keyHeader(key) });
  expect(missing.status()).toBe(404);

  await page.goto("/dashboard");
  await page.getByRole("link", { name: "Requests", exact: true }).first().click();
  await expect(page.getByRole("heading", { name: "Requests", level: 1 })).toBeVisible();
  // Written in batches off the request path: within seconds (Refresh until there).
  const rows = page.getByTestId("request-row");
  await expect
    .poll(
      async () => {
        await page.getByRole("button", { name: "Refresh" }).click();
        return rows.count();
      },
      { timeout: 15_000, intervals: [500] },
    )
    .toBe(3);
  await expect(rows.filter({ hasText: "INVALID_ADDRESS" })).toHaveAttribute("data-status", "422");
  await expect(rows.filter({ hasText: "/api/v1/currencies" })).toHaveAttribute("data-status", "200");
  await expect(rows.first()).toContainText("Requests app");
  const text = (await page.locator("main").textContent()) ?? "";
  expect(text).not.toContain(key);
  expect(text).not.toContain(address);
  expect(text).toContain(`${address.slice(0, 6)}…${address.slice(-4)}`);
  // The README's picture (npm run screenshots); a test run writes it under test-results/.
  const dir = process.env.UPDATE_SCREENSHOTS === "1" ? "docs/screenshots" : "test-results/screenshots";
  await page.screenshot({ path: `${dir}/requests.png`, fullPage: true, animations: "disabled" });

  await page.getByTestId("requests-status-filter").selectOption("4xx");
  await expect(rows).toHaveCount(2);
  await expect(page).toHaveURL(/status=4xx/);
  await page.getByLabel("Route").selectOption("/api/v1/exchange");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("INVALID_ADDRESS");
  await page.getByTestId("requests-status-filter").selectOption("2xx");
  await expect(page.getByText("No requests match these filters")).toBeVisible();
});

test("a delivery in the webhook log is sent again with its webhook-id by Resend", async ({ page }) => {
  const received: { id: string; body: string }[] = [];
  const receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ id: String(req.headers["webhook-id"]), body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  try {
    await signIn(page, newWallet());
    await page.goto("/dashboard/webhooks");
    await page.getByLabel("Endpoint URL").fill(url);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const endpoint = page.getByTestId("webhook-endpoint").filter({ hasText: url });
    await endpoint.getByRole("button", { name: "Send test event" }).click();
    const row = page.getByTestId("webhook-delivery").filter({ hasText: "webhook.test" });
    await expect(row).toHaveAttribute("data-status", "succeeded");
    expect(received).toHaveLength(1);

    await row.getByRole("button", { name: /^Resend webhook\.test/ }).click();
    await expect.poll(() => received.length, { timeout: 30_000 }).toBe(2);
    expect(received[1]).toEqual(received[0]);
    await expect(row).toHaveAttribute("data-status", "succeeded");
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
});
