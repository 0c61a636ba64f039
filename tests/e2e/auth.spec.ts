import { expect, test } from "@playwright/test";
import { createSiweMessage } from "viem/siwe";
import { apiContext, injectWallet, newWallet, signIn, signInThroughPage } from "./helpers";

// Sign-In with Ethereum: the happy path through the page, and the server refusing what it
// must refuse, checked over plain HTTP with real signatures.

test("a visitor without a session is sent to the sign-in page", async ({ page }) => {
  await page.goto("/dashboard/keys");
  await expect(page).toHaveURL(/\/signin/);
  await expect(page.getByRole("heading", { name: "Sign in with your wallet" })).toBeVisible();
  const res = await page.request.get("/dashboard/export/orders");
  expect(res.status()).toBe(401);
});

test("sign in with an injected wallet, then sign out", async ({ page }) => {
  const wallet = newWallet();
  await signInThroughPage(page, wallet);
  const addr = wallet.account.address;
  await expect(page.getByTestId("wallet-address")).toHaveAttribute("title", addr);
  expect(wallet.signed).toHaveLength(1);
  const msg = wallet.signed[0].message;
  const origin = new URL(page.url()).origin;
  expect(msg).toContain(`${new URL(origin).host} wants you to sign in with your Ethereum account:\n${addr}`);
  expect(msg).toContain(`URI: ${origin}`);
  expect(msg).toContain("Chain ID: 1");

  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL("**/signin");
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/signin/);
});

test("a callbackUrl that would lead off the app after sign-in lands on the dashboard; one of the app's paths is kept", async ({
  browser,
  baseURL,
}) => {
  // The reported forms (issue 48): the URL parser drops tab, LF and CR, and reads "\" as "/".
  const phish = "127.0.0.1:3874/phish";
  for (const callback of [`/\t/${phish}`, `/\n/${phish}`, `/\t\\${phish}`]) {
    const page = await browser.newPage();
    await injectWallet(page, newWallet());
    await page.goto(`/signin?callbackUrl=${encodeURIComponent(callback)}`);
    await page.getByRole("button", { name: "Connect wallet" }).click();
    await page.waitForURL((u) => u.pathname === "/dashboard" || u.host !== new URL(baseURL!).host);
    expect(new URL(page.url()).origin, JSON.stringify(callback)).toBe(new URL(baseURL!).origin);
    await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
    await page.close();
  }
  const page = await browser.newPage();
  await injectWallet(page, newWallet());
  await page.goto(`/signin?callbackUrl=${encodeURIComponent("/dashboard/keys")}`);
  await page.getByRole("button", { name: "Connect wallet" }).click();
  await page.waitForURL("**/dashboard/keys");
  await page.close();
});

/** Posts credentials to next-auth's callback like the page does; returns the error code and the session after. */
async function submitSignIn(baseURL: string, message: string, signature: string) {
  const api = await apiContext(baseURL);
  const { csrfToken } = (await (await api.get("/api/auth/csrf")).json()) as { csrfToken: string };
  const res = await api.post("/api/auth/callback/siwe", { form: { csrfToken, message, signature, json: "true" } });
  const body = (await res.json()) as { url: string };
  const error = new URL(body.url).searchParams.get("error");
  const session = (await (await api.get("/api/auth/session")).json()) as { wallet?: string };
  await api.dispose();
  return { status: res.status(), error, session };
}

async function freshNonce(baseURL: string) {
  const api = await apiContext(baseURL);
  const r = (await (await api.post("/api/auth/nonce")).json()) as { nonce: string };
  await api.dispose();
  return r.nonce;
}

test("a replayed sign-in message (same nonce) is refused", async ({ page, baseURL }) => {
  const wallet = newWallet();
  // The fixture's message is the page's (same fields, same server checks), and it just worked.
  await signIn(page, wallet);
  const { message, signature } = wallet.signed[0];
  // The very message and signature that just worked, sent again from another client.
  const replay = await submitSignIn(baseURL!, message, signature);
  expect(replay.error).toBe("NONCE_INVALID");
  expect(replay.status).toBe(401);
  expect(replay.session).toEqual({});
});

test("messages for another domain, URI or chain, bad signatures and unknown nonces are refused", async ({ baseURL }) => {
  const wallet = newWallet();
  const origin = new URL(baseURL!);
  const base = {
    address: wallet.account.address,
    domain: origin.host,
    uri: origin.origin,
    version: "1" as const,
    chainId: 1,
    issuedAt: new Date(),
    statement: "Sign in to the reseller dashboard.",
  };
  const sign = async (fields: Partial<typeof base> & { nonce: string }, signer = wallet) => {
    const message = createSiweMessage({ ...base, ...fields });
    return { message, signature: await signer.account.signMessage({ message }) };
  };

  const cases: [string, () => Promise<{ message: string; signature: string }>, string][] = [
    [
      "another domain",
      async () => sign({ nonce: await freshNonce(baseURL!), domain: "evil.example", uri: "https://evil.example" }),
      "WRONG_DOMAIN",
    ],
    ["same domain, another port", async () => sign({ nonce: await freshNonce(baseURL!), domain: `${origin.hostname}:1` }), "WRONG_DOMAIN"],
    [
      "right domain, URI elsewhere",
      async () => sign({ nonce: await freshNonce(baseURL!), uri: "https://evil.example/login" }),
      "WRONG_URI",
    ],
    ["another chain", async () => sign({ nonce: await freshNonce(baseURL!), chainId: 5 }), "WRONG_CHAIN"],
    ["a nonce the server never issued", async () => sign({ nonce: "0123456789abcdef0123456789abcdef" }), "NONCE_INVALID"],
    ["signed by another key", async () => sign({ nonce: await freshNonce(baseURL!) }, newWallet()), "BAD_SIGNATURE"],
    [
      "an old message",
      async () => sign({ nonce: await freshNonce(baseURL!), issuedAt: new Date(Date.now() - 60 * 60_000) }),
      "MESSAGE_EXPIRED",
    ],
    [
      "text appended after the signed fields",
      async () => {
        const s = await sign({ nonce: await freshNonce(baseURL!) });
        const message = `${s.message}\nURI: https://evil.example`;
        return { message, signature: await wallet.account.signMessage({ message }) };
      },
      "MALFORMED_MESSAGE",
    ],
  ];
  for (const [name, make, code] of cases) {
    const { message, signature } = await make();
    const r = await submitSignIn(baseURL!, message, signature);
    expect(r.error, name).toBe(code);
    expect(r.session, name).toEqual({});
  }

  // The same harness with a correct message signs in, so the refusals above are the checks at work.
  const ok = await sign({ nonce: await freshNonce(baseURL!) });
  const good = await submitSignIn(baseURL!, ok.message, ok.signature);
  expect(good.error).toBeNull();
  expect(good.session.wallet).toBe(wallet.account.address.toLowerCase());
});

test("Sign out everywhere ends the wallet's sessions in every browser: an old session cookie gets the sign-in page", async ({
  browser,
}) => {
  const wallet = newWallet();
  const laptop = await browser.newContext();
  const phone = await browser.newContext();
  const laptopPage = await laptop.newPage();
  const phonePage = await phone.newPage();
  await signIn(laptopPage, wallet);
  await signIn(phonePage, wallet);
  // A copy of the laptop's cookie as it is now, to replay after the sign-out.
  const oldCookies = await laptop.cookies();

  await laptopPage.goto("/dashboard/settings");
  await laptopPage.getByRole("button", { name: "Sign out everywhere" }).click();
  await laptopPage.getByRole("dialog").getByRole("button", { name: "Sign out everywhere" }).click();
  await laptopPage.waitForURL("**/signin");

  // The phone's session ended too: its next page is the sign-in page.
  await phonePage.goto("/dashboard/orders");
  await expect(phonePage).toHaveURL(/\/signin/);
  await expect(phonePage.getByRole("heading", { name: "Sign in with your wallet" })).toBeVisible();

  // The laptop's old cookie, replayed in a fresh browser, is no session either.
  const replay = await browser.newContext();
  await replay.addCookies(oldCookies);
  const replayPage = await replay.newPage();
  await replayPage.goto("/dashboard");
  await expect(replayPage).toHaveURL(/\/signin/);
  await expect(replayPage.getByRole("heading", { name: "Sign in with your wallet" })).toBeVisible();

  // Signing in again works.
  const again = await browser.newContext();
  await signIn(await again.newPage(), wallet);
  for (const c of [laptop, phone, replay, again]) await c.close();
});

test("a signature that does not match the wallet says that contract wallets need an RPC node here", async ({ page }) => {
  const wallet = newWallet();
  await injectWallet(page, wallet, { signer: newWallet() });
  await page.goto("/signin");
  await page.getByRole("button", { name: "Connect wallet" }).click();
  const alert = page.getByRole("alert").filter({ hasText: "signature" });
  await expect(alert).toContainText("The signature does not match the wallet address.");
  await expect(alert).toContainText("smart-contract wallet");
  await expect(alert).toContainText("SIWE_RPC_URL");
  await expect(page).toHaveURL(/\/signin/);
});
