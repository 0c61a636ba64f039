import { expect, type Page } from "@playwright/test";
import { runCliProcess } from "../support/cli";
import { injectWallet, type TestWallet } from "./helpers";

// The operator's console in the browser (issue 52): operators are added as an operator adds
// the first admin (the CLI, `operator:add <wallet> <role>`, against the server's database), and
// sign in through the console's own page with the injected test wallet (a real secp256k1 key
// signs the EIP-4361 message; the server checks it).

export async function addOperatorWithCli(databaseUrl: string, wallet: TestWallet, role: string) {
  const r = await runCliProcess(databaseUrl, ["operator:add", wallet.account.address, role], { LOG_LEVEL: "warn" });
  expect(r.code, `operator:add failed:\n${r.out}${r.err}`).toBe(0);
  expect(r.out).toContain(`role ${role}`);
}

/** Opens /console without a session (sent to the sign-in page), signs in with the wallet, lands on the queue. */
export async function signInConsoleThroughPage(page: Page, wallet: TestWallet, opts: { base?: string; inject?: boolean } = {}) {
  if (opts.inject !== false) await injectWallet(page, wallet);
  const base = opts.base ?? "";
  await page.goto(`${base}/console`);
  await page.waitForURL(/\/console\/signin/);
  await page.getByRole("button", { name: "Sign in with wallet" }).click();
  await expect(page.getByRole("heading", { name: "Queue", level: 1 })).toBeVisible();
  await expect(page.getByTestId("operator-wallet")).toHaveAttribute("title", new RegExp(wallet.account.address, "i"));
}
