import path from "node:path";
import { expect, test } from "@playwright/test";
import { addOperatorWithCli, signInConsoleThroughPage } from "./console-helpers";
import { injectWallet, newWallet, signIn } from "./helpers";

// The operator's console in Chromium (issue 52): an operator signs in with a real wallet
// signature on the console's own page, sees the queue, reads the audit log and exports it; an
// admin adds an operator, who signs in with the role given and sees no admin form; a removed
// operator is signed out at its next request. The console's session and the reseller
// dashboard's are separate: neither opens the other.

test.skip(Boolean(process.env.E2E_BASE_URL), "adds operators with the CLI against the test server's own database");
const databaseUrl = () => `file:${path.join(process.env.E2E_DATA_DIR!, "e2e.db")}`;

test("an admin signs in with the wallet, sees the queue and the audit log, adds and removes an operator", async ({ page, browser }) => {
  const admin = newWallet();
  await addOperatorWithCli(databaseUrl(), admin, "admin");
  await signInConsoleThroughPage(page, admin);
  await expect(page.getByTestId("operator-role")).toHaveText("admin");
  // The wallet signed one EIP-4361 message, for this origin, naming the console.
  expect(admin.signed).toHaveLength(1);
  const host = new URL(page.url()).host;
  expect(admin.signed[0].message).toMatch(
    new RegExp(`^${host.replace(".", "\\.")} wants you to sign in with your Ethereum account:\\n${admin.account.address}`),
  );
  expect(admin.signed[0].message).toContain("Sign in to the operator's console.");
  // The queue: its table (or the empty line), not an error.
  await expect(page.getByTestId("queue")).toBeVisible();
  await expect(page.getByTestId("console-error")).toHaveCount(0);

  // Orders, resellers, withdrawals and the treasury answer their tables, not errors.
  await page.getByRole("link", { name: "Orders" }).click();
  await expect(page.getByTestId("orders")).toBeVisible();
  await page.getByRole("link", { name: "Resellers" }).click();
  await expect(page.getByTestId("resellers")).toBeVisible();
  await page.getByRole("link", { name: "Withdrawals" }).click();
  await expect(page.getByTestId("withdrawals")).toBeVisible();
  await page.getByRole("link", { name: "Treasury" }).click();
  await expect(page.getByTestId("treasury-reconciliation")).toBeVisible();
  await expect(page.getByTestId("console-error")).toHaveCount(0);
  // An admin runs a reconciliation: it is the last one the page shows, by this wallet.
  await page.getByRole("button", { name: "Reconcile now" }).click();
  await expect(page.getByTestId("treasury-reconciliation")).toContainText(admin.account.address.toLowerCase());

  // The audit log, filtered to this admin's wallet.
  await page.getByRole("link", { name: "Audit log" }).click();
  await expect(page.getByRole("heading", { name: "Audit log", level: 1 })).toBeVisible();
  await page.getByLabel("Actor (wallet)").fill(admin.account.address);
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/actor=0x/);
  // This admin's events, newest first: the reconciliation, the sign-in (the CLI's addition is the CLI's).
  const mine = page.getByTestId("audit-row");
  await expect
    .poll(async () => mine.evaluateAll((els) => els.map((e) => e.getAttribute("data-action"))))
    .toEqual(["treasury.reconcile", "operator.sign_in"]);

  // An admin adds a support operator.
  const support = newWallet();
  await page.getByRole("link", { name: "Operators" }).click();
  await expect(page.getByRole("heading", { name: "Operators", level: 1 })).toBeVisible();
  const form = page.getByTestId("add-operator");
  // A wallet that is no address: the server's refusal, shown.
  await form.getByLabel("Wallet address").fill("0x1234");
  await form.getByRole("button", { name: "Add operator" }).click();
  await expect(form.getByTestId("console-error")).toBeVisible();
  await form.getByLabel("Wallet address").fill(support.account.address);
  await form.getByLabel("Role").selectOption("support");
  await form.getByRole("button", { name: "Add operator" }).click();
  await expect(form.getByRole("status")).toContainText("Saved");
  const row = page.locator(`[data-testid="operator-row"][data-wallet="${support.account.address.toLowerCase()}"]`);
  await expect(row).toContainText("support");

  // The addition is on the record, under the admin's wallet.
  await page.goto(`/console/audit?action=operator.add&actor=${admin.account.address}`);
  await expect(page.getByTestId("audit-row").first()).toContainText(support.account.address.toLowerCase());
  await expect(page.getByTestId("audit-row").first()).toHaveAttribute("data-action", "operator.add");

  // The CSV export of the same filter.
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export CSV" }).click();
  const csv = await (await download).createReadStream().then(async (s) => {
    let t = "";
    for await (const c of s) t += c;
    return t;
  });
  expect(csv.split("\n")[0]).toContain("action");
  expect(csv).toContain("operator.add");
  expect(csv).toContain(support.account.address.toLowerCase());

  // The support operator signs in, in a browser of its own: its role, no admin form.
  const ctx = await browser.newContext();
  const page2 = await ctx.newPage();
  await signInConsoleThroughPage(page2, support);
  await expect(page2.getByTestId("operator-role")).toHaveText("support");
  await page2.getByRole("link", { name: "Operators" }).click();
  await expect(page2.getByTestId("operators")).toBeVisible();
  await expect(page2.getByTestId("add-operator")).toHaveCount(0);
  await expect(page2.getByRole("button", { name: "Remove" })).toHaveCount(0);

  // The admin removes it, with a reason; its next request finds no session: the sign-in page.
  await page.goto("/console/operators");
  const supportRow = page.locator(`[data-testid="operator-row"][data-wallet="${support.account.address.toLowerCase()}"]`);
  await supportRow.getByLabel("Reason").fill("left the team");
  await supportRow.getByRole("button", { name: "Remove" }).click();
  await expect(supportRow).toHaveCount(0);
  await page2.goto("/console/audit");
  await page2.waitForURL(/\/console\/signin\?next=%2Fconsole%2Faudit/);
  // And it cannot sign in again.
  await page2.getByRole("button", { name: "Sign in with wallet" }).click();
  await expect(page2.getByTestId("console-error")).toContainText("not an operator");
  await ctx.close();

  // The removal is on the record with its reason.
  await page.goto("/console/audit?action=operator.remove");
  await expect(page.getByTestId("audit-row").first()).toContainText("left the team");

  // Signing out ends the session: the console sends the browser back to its sign-in page.
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/console\/signin$/);
  await page.goto("/console/orders");
  await page.waitForURL(/\/console\/signin\?next=%2Fconsole%2Forders/);
});

test("a wallet that is no operator is refused; the dashboard's session and the console's open nothing of each other", async ({
  page,
  browser,
}) => {
  // A reseller signed in to the dashboard: the console still asks for its own sign-in, and its API answers 401.
  const reseller = newWallet();
  await signIn(page, reseller);
  await page.goto("/console");
  await page.waitForURL(/\/console\/signin/);
  const me = await page.evaluate(async () => (await fetch("/api/console/me")).status);
  expect(me).toBe(401);
  // Its wallet is no operator: refused, and said so.
  await page.getByRole("button", { name: "Sign in with wallet" }).click();
  await expect(page.getByTestId("console-error")).toContainText("This wallet is not an operator of this platform.");
  await expect(page).toHaveURL(/\/console\/signin/);

  // An operator signed in to the console: the dashboard asks for its own sign-in.
  const operator = newWallet();
  await addOperatorWithCli(databaseUrl(), operator, "viewer");
  const ctx = await browser.newContext();
  const page2 = await ctx.newPage();
  await injectWallet(page2, operator);
  await signInConsoleThroughPage(page2, operator, { inject: false });
  await page2.goto("/dashboard");
  await page2.waitForURL(/\/signin/);
  expect(new URL(page2.url()).pathname).toBe("/signin");
  // A viewer sees the operators but no form to change them.
  await page2.goto("/console/operators");
  await expect(page2.getByTestId("operators")).toBeVisible();
  await expect(page2.getByTestId("add-operator")).toHaveCount(0);
  await ctx.close();
});
