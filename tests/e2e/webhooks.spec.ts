import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { apiContext, createKeyInUi, createOrder, driveToFinished, ethAddress, newWallet, signIn } from "./helpers";

// The Webhooks page against the real server (which may call 127.0.0.1 here:
// WEBHOOK_ALLOW_PRIVATE in playwright.config.ts): a receiver in this process gets the events.

test("add an endpoint, send a test event, see it in the delivery log; order events follow", async ({ page, baseURL }) => {
  const received: { body: string; headers: Record<string, string> }[] = [];
  const receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ body, headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  try {
    const wallet = newWallet();
    await signIn(page, wallet);
    await page.getByRole("link", { name: "Webhooks" }).click();
    await expect(page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();

    await page.getByLabel("Endpoint URL").fill(url);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secret = await page.getByTestId("webhook-secret").inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    const endpoint = page.getByTestId("webhook-endpoint").filter({ hasText: url });
    await expect(endpoint).toContainText("All events");
    await expect(endpoint).toContainText("Enabled");

    await endpoint.getByRole("button", { name: "Send test event" }).click();
    const row = page.getByTestId("webhook-delivery").filter({ hasText: "webhook.test" });
    await expect(row).toHaveAttribute("data-status", "succeeded");
    await expect(row).toContainText("204");
    await expect(row).toContainText(" ms");
    // What arrived verifies with the secret the page showed once.
    expect(received).toHaveLength(1);
    expect(new Webhook(secret).verify(received[0].body, received[0].headers)).toMatchObject({ type: "webhook.test" });

    // An order made with a key of this reseller: its events show in the log too.
    const key = await createKeyInUi(page, "Webhooks app");
    const api = await apiContext(baseURL!);
    const order = await createOrder(api, key, { from: "btc", to: "eth", amount: "0.1", address: ethAddress() });
    await driveToFinished(api, key, order.id);
    await page.goto("/dashboard/webhooks");
    await page.getByTestId("webhook-endpoint").filter({ hasText: url }).getByRole("button", { name: "Delivery log" }).click();
    await expect(page.getByTestId("webhook-delivery").filter({ hasText: order.id })).toHaveCount(5);
    await expect(page.getByTestId("webhook-delivery").filter({ hasText: "order.created" })).toHaveAttribute("data-status", "succeeded");

    // Disable: the reason shows and the test button is off; enable again.
    await page.getByTestId("webhook-endpoint").filter({ hasText: url }).getByRole("button", { name: "Disable" }).click();
    await expect(page.getByTestId("webhook-disabled-reason")).toContainText("Disabled in the dashboard.");
    await expect(page.getByRole("button", { name: "Send test event" })).toBeDisabled();
    await page.getByRole("button", { name: "Enable" }).click();
    await expect(page.getByRole("button", { name: "Send test event" })).toBeEnabled();

    // The Docs page shows how to verify a delivery in TypeScript (docs/examples/verify-webhook.ts, run by a unit test).
    await page.goto("/dashboard/docs#webhooks");
    const docs = page.getByRole("region", { name: "Webhooks: verify every delivery" });
    await expect(docs).toContainText("new Webhook(secret)");
    await expect(docs).toContainText("wh.verify(rawBody, h)");
  } finally {
    receiver.close();
  }
});
