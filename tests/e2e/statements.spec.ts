import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { parse } from "csv-parse/sync";
import Decimal from "decimal.js";
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

// The Statements page in a browser: a reseller's sandbox orders (one finished, one failed) this
// month show as profit credited and reversed; the row's figures are the CSV's and the profit
// ledger's own sum; axe finds no serious violation; printed, the nav and the buttons are gone.
// With UPDATE_SCREENSHOTS=1 (npm run screenshots) the page's picture goes to docs/screenshots/.

const DIR = process.env.UPDATE_SCREENSHOTS === "1" ? "docs/screenshots" : "test-results/screenshots";

async function noSeriousViolations(page: Page, what: string) {
  const r = await new AxeBuilder({ page }).analyze();
  const bad = r.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(
    bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    what,
  ).toEqual([]);
}

test("the Statements page shows the month's figures, equal to the CSV and the ledger; axe-clean; printable", async ({ page, baseURL }) => {
  test.setTimeout(180_000);
  await signIn(page, newWallet());
  await setMarkupInUi(page, 150);
  const key = await createKeyInUi(page, "Statements");
  await page.getByRole("button", { name: "Done" }).click();
  const api = await apiContext(baseURL!);
  const done = await createOrder(api, key, { from: "btc", to: "eth", amount: "0.12", address: ethAddress() });
  await driveToFinished(api, key, done.id);
  const failing = await createOrder(api, key, { from: "btc", to: "eth", amount: "0.05", address: ethAddress() });
  await api.post(`/api/v1/sandbox/exchange/${failing.id}/deposit`, { headers: keyHeader(key), data: { amount: "0.0000001" } });
  await expect
    .poll(
      async () =>
        ((await (await api.get(`/api/v1/exchange/${failing.id}`, { headers: keyHeader(key) })).json()) as { status: string }).status,
      { timeout: 120_000, intervals: [200] },
    )
    .toBe("failed");
  await api.dispose();

  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Statements" }).click();
  await expect(page.getByRole("heading", { name: "Statements", level: 1 })).toBeVisible();
  const month = new Date().toISOString().slice(0, 7);
  const row = page.getByTestId(`statement-eth-${month}`);
  await expect(row).toBeVisible();
  const cell = async (col: string) => (await row.locator(`[data-col="${col}"]`).textContent())!.trim();
  const figures = {
    opening: await cell("opening"),
    credited: await cell("credited"),
    reversed: await cell("reversed"),
    withdrawn: await cell("withdrawn"),
    closing: await cell("closing"),
  };
  expect(figures.opening).toBe("0");
  expect(new Decimal(figures.credited).gt(0)).toBe(true);
  expect(new Decimal(figures.reversed).gt(0)).toBe(true);
  expect(figures.withdrawn).toBe("0");
  expect(new Decimal(figures.closing).eq(new Decimal(figures.credited).minus(figures.reversed))).toBe(true);

  // The CSV has the same row; the profit ledger's own entries sum to the closing balance.
  const csv = await page.request.get("/dashboard/export/statements");
  expect(csv.status()).toBe(200);
  const rows = parse(await csv.text(), { columns: true }) as Record<string, string>[];
  expect(rows).toEqual([
    {
      month,
      currency: "eth",
      opening_balance: figures.opening,
      profit_credited: figures.credited,
      profit_reversed: figures.reversed,
      withdrawn: figures.withdrawn,
      closing_balance: figures.closing,
    },
  ]);
  const ledger = parse(await (await page.request.get("/dashboard/export/ledger")).text(), { columns: true }) as Record<string, string>[];
  const sum = ledger.filter((e) => e.currency === "eth").reduce((s, e) => s.plus(e.amount), new Decimal(0));
  expect(sum.eq(figures.closing)).toBe(true);

  await noSeriousViolations(page, "statements page");
  await page.waitForLoadState("networkidle");
  await page.screenshot({ path: `${DIR}/statements.png`, fullPage: true, animations: "disabled" });

  // Printed (or saved as PDF): the figures stay, the nav and the buttons go.
  await page.emulateMedia({ media: "print" });
  await expect(page.getByRole("navigation", { name: "Dashboard" })).toBeHidden();
  await expect(page.getByRole("button", { name: "Print or save as PDF" })).toBeHidden();
  await expect(page.getByTestId("export-statements")).toBeHidden();
  await expect(row.locator('[data-col="closing"]')).toHaveText(figures.closing);
  await page.emulateMedia({ media: "screen" });
  await expect(page.getByRole("button", { name: "Print or save as PDF" })).toBeVisible();

  // A phone: the table scrolls inside its card, the page does not scroll sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForLoadState("networkidle");
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), { timeout: 60_000 }).toBe(true);
});
