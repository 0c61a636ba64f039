import fs from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { runCliProcess } from "../support/cli";
import { createDatabase, type RunningServer, startServer, type TestDatabase } from "../support/server";
import { addOperatorWithCli, signInConsoleThroughPage } from "./console-helpers";
import { assertLedgerConsistent, newWallet } from "./helpers";
import { type FakesClient, startFakesProcess } from "./support/fakes-client";

// Issue 52, "Done when", in Chromium: with the provider fakes, an exchange put on hold upstream
// (SideShift's "review") appears in the console's queue; a support operator opens it and sends a
// refund address upstream from the order's page; the provider refunds; the order shows failed
// with the refund's hash; the audit log holds each step. Then the pictures of docs/operator.md
// (the queue, an order, the audit log): test-results/operator/, or with UPDATE_SCREENSHOTS=1 over
// the committed docs/operator/.
//
// The app is a production server of this file's own (tests/support/server.ts startServer), not
// playwright.config.ts's shared one: it must talk to this file's provider fakes (ENGINE=providers
// and their URLs), which run in a process of their own (./support/fakes-process.ts: the worker
// cannot import lib/, whose modules are server-only).

const DIR = process.env.UPDATE_SCREENSHOTS === "1" ? "docs/operator" : "test-results/operator";

let fakes: FakesClient;
let database: TestDatabase;
let server: RunningServer;
let base: string;
let resellerId: string;

test.skip(Boolean(process.env.E2E_BASE_URL), "starts a server of its own, with the provider fakes");
// In order, on one server: the second test reads the call counts of the first one's exchange.
test.describe.configure({ mode: "default" });

test.beforeAll(async () => {
  test.setTimeout(300_000);
  fakes = await startFakesProcess();
  database = await createDatabase("sqlite");
  server = await startServer({
    databaseUrl: database.url,
    env: {
      ...fakes.env,
      // The fakes' settings leave Next out (an API-only instance); this file's subject is the console's pages.
      SERVE_DASHBOARD: "true",
      // Every page load and read comes from 127.0.0.1; the limits are tested in tests/http/rate-limits.test.ts.
      RATE_LIMIT_PUBLIC_PER_MINUTE: "1000",
      RATE_LIMIT_SIGNIN_PER_MINUTE: "1000",
    },
  });
  // The browser opens the app at its own origin (APP_URL: localhost), as the console's API requires.
  base = server.baseUrl.replace("127.0.0.1", "localhost");
  const made = await runCliProcess(database.url, ["reseller:create", newWallet().account.address], { LOG_LEVEL: "warn" });
  expect(made.code, made.out + made.err).toBe(0);
  resellerId = /reseller (\S+)/.exec(made.out)![1];
});

test.afterAll(async () => {
  try {
    // The refund touched no book of ours; the order's pending profit was reversed on failure.
    if (database) await assertLedgerConsistent(database.url);
  } finally {
    await server?.stop();
    await fakes?.stop();
    await database?.drop();
  }
});

const settle = (page: Page) => page.waitForLoadState("networkidle", { timeout: 15_000 }).catch(() => {});
async function shoot(page: Page, name: string) {
  await settle(page);
  fs.mkdirSync(DIR, { recursive: true });
  await page.screenshot({ path: `${DIR}/${name}.png`, fullPage: true, animations: "disabled" });
}

test("an exchange on hold upstream: in the queue, a refund address sent from the order's page, refunded, on the record", async ({
  page,
  browser,
}) => {
  test.setTimeout(300_000);
  const support = newWallet();
  await addOperatorWithCli(database.url, support, "support");

  // An exchange on SideShift that goes on hold (review) after its deposit, without a refund address.
  const payout = await fakes.call<string>("address", { ticker: "eth" });
  await fakes.call("script", { payout, steps: ["waiting", "pending", "processing", { status: "review", issue: "Needs review" }] });
  const res = await fetch(`${server.baseUrl}/api/hosted/orders`, {
    method: "POST",
    headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
    body: JSON.stringify({ r: resellerId, from: "btc", to: "eth", amount: "0.1", address: payout }),
  });
  const made = (await res.json()) as { order: { id: string } };
  expect(res.status, JSON.stringify(made)).toBe(201);
  const id = made.order.id;
  const shift = (await fakes.call<{ id: string } | null>("shiftFor", { payout }))!;
  expect(shift).not.toBeNull();

  // The support operator signs in: the held exchange is in the queue, with how long it has waited.
  await signInConsoleThroughPage(page, support, { base });
  const item = page.locator(`[data-testid="queue-item"][data-target="${id}"]`);
  await expect(async () => {
    await page.reload();
    await expect(item).toBeVisible({ timeout: 5_000 });
  }).toPass({ timeout: 120_000 });
  await expect(item).toContainText("hold");
  await shoot(page, "queue");

  // The order's page: on hold, the provider's raw statuses as received.
  await item.getByRole("link", { name: id }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText(id);
  await expect(page.getByTestId("order-status")).toHaveText("exchanging");
  await expect(page.getByTestId("upstream-statuses")).toContainText("review");
  // Sync now: the provider asked at once (on the record as order.sync).
  await page.getByRole("button", { name: "Sync now" }).click();
  await expect(page.locator('[data-testid="order-audit"] [data-action="order.sync"]')).toHaveCount(1);

  // A wrong address: refused, said so, SideShift never asked.
  const form = page.getByTestId("refund-address-form");
  await form.getByLabel("Refund address").fill(await fakes.call<string>("address", { ticker: "eth" }));
  await form.getByLabel("Reason").fill("user asked by email");
  await form.getByRole("button", { name: "Send refund address" }).click();
  await expect(form.getByTestId("console-error")).toBeVisible();
  expect(await fakes.call<unknown[]>("refundAddressCalls", { shiftId: shift.id })).toEqual([]);

  // The right one: sent upstream.
  const refundAddress = await fakes.call<string>("address", { ticker: "btc" });
  await form.getByLabel("Refund address").fill(refundAddress);
  await form.getByLabel("Reason").fill("user asked by email");
  await form.getByRole("button", { name: "Send refund address" }).click();
  // Done, said above the forms (the form itself is gone: the order takes no other address).
  await expect(page.getByTestId("order-action-done")).toContainText("refund address sent");
  await expect(page.getByTestId("order-summary")).toContainText(refundAddress);
  await expect(page.getByTestId("refund-address-form")).toHaveCount(0);
  const calls = await fakes.call<{ address: string; answered: number }[]>("refundAddressCalls", { shiftId: shift.id });
  expect(calls).toMatchObject([{ address: refundAddress, answered: 201 }]);

  // SideShift refunds to it: the page shows the order failed, with the refund's hash.
  await fakes.call("refund", { shiftId: shift.id });
  await expect(page.getByTestId("order-status")).toHaveText("failed", { timeout: 120_000 });
  await expect(page.getByTestId("refund-hash")).toContainText(`ss-refund-${shift.id}`);
  await expect(page.getByTestId("order-audit")).toContainText(refundAddress);
  // Refunded and final: nothing to sync or resolve any more; a note still can be added.
  await expect(page.getByRole("button", { name: "Sync now" })).toHaveCount(0);
  await expect(page.getByTestId("resolve-form")).toHaveCount(0);
  const note = page.getByTestId("note-form");
  await note.getByLabel("Note").fill("refunded after review; user informed");
  await note.getByRole("button", { name: "Add note" }).click();
  await expect(page.getByTestId("order-audit")).toContainText("refunded after review; user informed");
  await shoot(page, "order");

  // The audit log, filtered to the order: the support's action with its reason; its sign-in is there too.
  await page.getByRole("link", { name: "Audit log" }).click();
  await page.getByLabel("Target id").fill(id);
  await page.getByRole("button", { name: "Filter" }).click();
  const rows = page.getByTestId("audit-row");
  // Each step, newest first, each by the support operator; the refused address left no row.
  await expect
    .poll(async () => rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-action"))))
    .toEqual(["order.note", "order.refund_address", "order.sync"]);
  for (const r of await rows.all()) await expect(r).toContainText(support.account.address.toLowerCase());
  await expect(rows.filter({ hasText: refundAddress })).toHaveCount(1);
  await expect(rows.filter({ hasText: refundAddress })).toContainText(support.account.address.toLowerCase());
  await expect(rows.filter({ hasText: refundAddress })).toContainText("user asked by email");
  await page.goto(`${base}/console/audit`);
  await expect(page.locator('[data-testid="audit-row"][data-action="operator.sign_in"]').first()).toContainText(
    support.account.address.toLowerCase(),
  );
  await shoot(page, "audit");

  // The order's reseller: suspended with a reason, then restored; a markup cap; each on its record.
  await page.getByRole("link", { name: "Resellers" }).click();
  await page.getByRole("link", { name: resellerId }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("active");
  const suspend = page.getByTestId("suspend-form");
  await suspend.getByLabel("Reason").fill("checking a complaint");
  await suspend.getByRole("button", { name: "Suspend" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("suspended");
  await expect(page.getByTestId("reseller-audit")).toContainText("checking a complaint");
  const restore = page.getByTestId("restore-form");
  await restore.getByLabel("Reason").fill("complaint cleared");
  await restore.getByRole("button", { name: "Restore" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("active");
  const cap = page.getByTestId("markup-cap-form");
  await cap.getByLabel("Cap (bps)").fill("300");
  await cap.getByLabel("Reason").fill("agreed with the reseller");
  await cap.getByRole("button", { name: "Set cap" }).click();
  await expect(page.getByTestId("reseller-summary")).toContainText(/markupCapBps\s*300/);
  await expect(page.getByTestId("reseller-audit").getByTestId("audit-row")).toHaveCount(3);

  // A viewer reads the same order and is offered no action (the server would refuse each: tests/http).
  const viewer = newWallet();
  await addOperatorWithCli(database.url, viewer, "viewer");
  const ctx = await browser.newContext();
  const page2 = await ctx.newPage();
  await signInConsoleThroughPage(page2, viewer, { base });
  await page2.goto(`${base}/console/orders/${id}`);
  await expect(page2.getByTestId("order-status")).toHaveText("failed");
  await expect(page2.getByText("Your role can take no action on this order now.")).toBeVisible();
  await expect(page2.getByRole("button", { name: "Add note" })).toHaveCount(0);
  await ctx.close();
});

test("providers: the engine's calls to SideShift counted; an admin switches SideShift off and on with a reason, on the record", async ({
  page,
}) => {
  test.setTimeout(300_000);
  const admin = newWallet();
  await addOperatorWithCli(database.url, admin, "admin");
  await signInConsoleThroughPage(page, admin, { base });
  await page.goto(`${base}/console/providers`);
  const row = page.getByTestId("provider-sideshift");
  // The server merges its call counts every 10 s (lib/engine/call-stats-flush.ts).
  await expect(async () => {
    await page.reload();
    await expect(row).toContainText(/^SideShift\s*on/, { timeout: 2_000 });
    await expect(row.locator("td").nth(2)).not.toHaveText(/^0 /, { timeout: 2_000 });
  }).toPass({ timeout: 120_000 });
  await expect(row.locator("td").nth(4)).toContainText(/≤ \d+ ms/);
  await shoot(page, "providers");

  const form = page.getByTestId("provider-switch-sideshift");
  await form.getByLabel("Reason").fill("too many holds this week");
  await form.getByRole("button", { name: "Switch off" }).click();
  await expect(row).toContainText(/^SideShift\s*off/);
  await form.getByLabel("Reason").fill("reviewed with their support");
  await form.getByRole("button", { name: "Switch on" }).click();
  await expect(row).toContainText(/^SideShift\s*on/);
  await page.goto(`${base}/console/audit`);
  const rows = page.locator('[data-testid="audit-row"][data-action^="provider."]');
  await expect
    .poll(async () => rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-action"))))
    .toEqual(["provider.enable", "provider.disable"]);
  await expect(rows.first()).toContainText("reviewed with their support");
});
