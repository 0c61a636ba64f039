import { expect, test } from "@playwright/test";
import { injectWallet, newWallet, signIn } from "./helpers";

// Issue 54 in the browser: the owner invites a second wallet as developer; that wallet opens the
// link, signs in through the join page and sees only what a developer may (keys, not
// withdrawals, not the team); the owner removes it, and its next request ends its session.

test("an owner invites a developer, who sees keys but not withdrawals, then removes them", async ({ browser }) => {
  const ownerCtx = await browser.newContext();
  const owner = await ownerCtx.newPage();
  const ownerWallet = newWallet();
  await signIn(owner, ownerWallet);
  await expect(owner.getByTestId("team-role")).toHaveText("owner");

  await owner.goto("/dashboard/team");
  await owner.getByTestId("invite-role").selectOption("developer");
  await owner.getByTestId("create-invite").click();
  const link = (await owner.getByTestId("invite-link").textContent())!;
  expect(link).toMatch(/\/join\/[A-Za-z0-9_-]{43}$/);

  // The invitee, in a browser of its own, opens the link and joins with its wallet.
  const devCtx = await browser.newContext();
  const dev = await devCtx.newPage();
  const devWallet = newWallet();
  await injectWallet(dev, devWallet);
  await dev.goto(link);
  await expect(dev.getByTestId("invite-offer")).toContainText("developer");
  await dev.getByRole("button", { name: "Join with your wallet" }).click();
  await dev.waitForURL("**/dashboard");
  await expect(dev.getByTestId("team-role")).toHaveText("developer");
  const nav = dev.getByRole("navigation", { name: "Dashboard" });
  await expect(nav.getByRole("link", { name: "API keys" })).toBeVisible();
  await expect(nav.getByRole("link", { name: "Withdrawals" })).toHaveCount(0);
  await expect(nav.getByRole("link", { name: "Team" })).toHaveCount(0);
  await dev.goto("/dashboard/keys");
  await expect(dev.getByRole("heading", { name: "API keys", level: 1 })).toBeVisible();
  await dev.goto("/dashboard/withdrawals");
  await expect(dev.getByTestId("no-access")).toBeVisible();
  // The server refuses the read itself too, whatever the page shows.
  const refused = await dev.request.get("/dashboard/api/withdrawals");
  expect(refused.status()).toBe(403);

  // The link is used up: opened again, it says so.
  const again = await browser.newPage();
  await again.goto(link);
  await expect(again.getByTestId("invite-error")).toHaveAttribute("data-code", "INVITE_USED");
  await again.close();

  // The owner sees the new member and the record, and removes them.
  await owner.goto("/dashboard/team");
  const row = owner.getByTestId("member-row").filter({ hasText: devWallet.account.address.toLowerCase() });
  await expect(row).toBeVisible();
  await expect(owner.getByTestId("team-record")).toContainText("Invitation used");
  await row.getByTestId("remove-member").click();
  await expect(row).toHaveCount(0);
  await expect(owner.getByTestId("team-record")).toContainText("Member removed");

  // The removed developer's next request: signed out.
  await dev.goto("/dashboard/keys");
  await dev.waitForURL("**/signin**");
  expect((await dev.request.get("/dashboard/api/keys")).status()).toBe(401);

  await ownerCtx.close();
  await devCtx.close();
});
