import { type APIRequestContext, expect, type Page, request as pwRequest } from "@playwright/test";
import { type Hex, hexToString, isHex } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { runCliProcess } from "../support/cli";

// Test helpers. Nothing here stubs the product: the wallet signs with a real secp256k1
// key (viem), the server verifies it, and the API is called over HTTP.

export interface TestWallet {
  account: PrivateKeyAccount;
  privateKey: Hex;
  /** Every message the page asked the wallet to sign, with its signature. */
  signed: { message: string; signature: Hex }[];
  /** Every EIP-712 typed-data JSON the page asked the wallet to sign (eth_signTypedData_v4). */
  signedTypedData: string[];
  /** Every EIP-1193 request the page made, in order: the method, and for a chain switch or add the chain id asked for. */
  calls: string[];
}

export function newWallet(privateKey: Hex = generatePrivateKey()): TestWallet {
  return { account: privateKeyToAccount(privateKey), privateKey, signed: [], signedTypedData: [], calls: [] };
}

export interface InjectOptions {
  /** The wallet's active chain when the page loads (default 1). */
  chainId?: number;
  /** Chains the wallet knows besides the active one (default: 1); switching to another one fails with 4902 until it is added. */
  knownChains?: number[];
  /** The user refuses every chain switch and chain addition (4001). */
  refuseSwitch?: boolean;
  /** A broken wallet that signs with another key than the account it reports. */
  signer?: TestWallet;
  /** The account the wallet reports, when it is not the signing key's: a smart-contract wallet (ERC-1271) the key owns. */
  address?: string;
}

/**
 * Gives the page an injected EIP-1193 provider (window.ethereum), the way a wallet extension
 * does. personal_sign and eth_signTypedData_v4 are forwarded to Node, where the viem account
 * signs. Like MetaMask, it has an active chain: wallet_switchEthereumChain moves it (4902 for
 * a chain it does not know, until wallet_addEthereumChain adds it), chainChanged is emitted,
 * and typed data whose domain names another chain than the active one is refused.
 * `window.__e2eWalletSetChain(id)` is the user switching networks in the wallet.
 */
export async function injectWallet(page: Page, wallet: TestWallet, opts: InjectOptions = {}) {
  const reported = (opts.address ?? wallet.account.address).toLowerCase();
  await page.exposeFunction("__e2eWalletCall", (entry: string) => {
    wallet.calls.push(entry);
  });
  await page.exposeFunction("__e2eWalletSign", async (payload: string, address: string) => {
    if (address.toLowerCase() !== reported) throw new Error("personal_sign for an unknown account");
    // Wallets receive personal_sign data hex-encoded (dapps are told to send it so).
    const message = isHex(payload) ? hexToString(payload) : payload;
    const signature = await (opts.signer ?? wallet).account.signMessage({ message });
    wallet.signed.push({ message, signature });
    return signature;
  });
  await page.exposeFunction("__e2eWalletSignTypedData", async (address: string, json: string) => {
    if (address.toLowerCase() !== reported) throw new Error("eth_signTypedData_v4 for an unknown account");
    wallet.signedTypedData.push(json);
    // What a wallet does with the v4 argument: sign the typed data it describes (uint256 fields
    // of a withdrawal, or of a standing payout instruction, arrive as decimal strings).
    const d = JSON.parse(json);
    const { EIP712Domain: _, ...types } = d.types;
    const message = { ...d.message };
    for (const k of ["amountBaseUnits", "expiresAt", "chainId"]) if (message[k] !== undefined) message[k] = BigInt(message[k]);
    return (opts.signer ?? wallet).account.signTypedData({ domain: d.domain, types, primaryType: d.primaryType, message });
  });
  const active = opts.chainId ?? 1;
  await page.addInitScript(
    ({ address, chainId, known, refuseSwitch }) => {
      const w = window as unknown as {
        ethereum?: unknown;
        __e2eWalletSetChain?: (id: number) => void;
        __e2eWalletCall: (entry: string) => Promise<void>;
        __e2eWalletSign: (payload: string, address: string) => Promise<string>;
        __e2eWalletSignTypedData: (address: string, json: string) => Promise<string>;
      };
      const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });
      const hex = (n: number) => `0x${n.toString(16)}`;
      const chains = new Set<number>([chainId, ...known]);
      let current = chainId;
      const listeners = new Map<string, Set<(...a: unknown[]) => void>>();
      const setChain = (id: number) => {
        if (id === current) return;
        current = id;
        for (const l of listeners.get("chainChanged") ?? []) l(hex(id));
      };
      w.__e2eWalletSetChain = setChain;
      w.ethereum = {
        isE2EWallet: true,
        async request({ method, params }: { method: string; params?: unknown[] }) {
          const asked = (params?.[0] as { chainId?: string } | undefined)?.chainId;
          await w.__e2eWalletCall(asked && method.startsWith("wallet_") ? `${method} ${Number.parseInt(asked, 16)}` : method);
          switch (method) {
            case "eth_requestAccounts":
            case "eth_accounts":
              return [address];
            case "eth_chainId":
              return hex(current);
            case "wallet_switchEthereumChain": {
              if (refuseSwitch) throw rpcError(4001, "User rejected the request.");
              const id = Number.parseInt(asked ?? "", 16);
              if (!chains.has(id))
                throw rpcError(4902, `Unrecognized chain ID "${asked}". Try adding the chain using wallet_addEthereumChain first.`);
              setChain(id);
              return null;
            }
            case "wallet_addEthereumChain": {
              if (refuseSwitch) throw rpcError(4001, "User rejected the request.");
              const p = params?.[0] as { chainId: string; rpcUrls?: string[]; chainName?: string };
              if (!p?.rpcUrls?.length || !p.chainName) throw rpcError(-32602, "rpcUrls and chainName are required");
              const id = Number.parseInt(p.chainId, 16);
              chains.add(id);
              setChain(id); // MetaMask offers to switch to the added chain; the user accepts
              return null;
            }
            case "personal_sign": {
              const [data, from] = (params ?? []) as [string, string];
              return w.__e2eWalletSign(data, from);
            }
            case "eth_signTypedData_v4": {
              const [from, json] = (params ?? []) as [string, string];
              const domainChain = Number((JSON.parse(json) as { domain?: { chainId?: string | number } }).domain?.chainId);
              // MetaMask's rule: the typed data's chain must be the active one.
              if (Number.isFinite(domainChain) && domainChain !== current)
                throw rpcError(-32603, `Provided chainId "${domainChain}" must match the active chainId "${current}"`);
              return w.__e2eWalletSignTypedData(from, json);
            }
            default:
              throw rpcError(4200, `The test wallet does not support ${method}`);
          }
        },
        on(event: string, l: (...a: unknown[]) => void) {
          if (!listeners.has(event)) listeners.set(event, new Set());
          listeners.get(event)!.add(l);
        },
        removeListener(event: string, l: (...a: unknown[]) => void) {
          listeners.get(event)?.delete(l);
        },
      };
    },
    {
      address: opts.address ?? wallet.account.address,
      chainId: active,
      known: opts.knownChains ?? [1],
      refuseSwitch: opts.refuseSwitch ?? false,
    },
  );
}

/**
 * Signs in without the sign-in page: a nonce from the server, the EIP-4361 message the page
 * would build, signed by the wallet's key with viem, posted to next-auth's callback from the
 * page's own browser context (so the session cookie lands in it), then the dashboard opened.
 * The same server-side checks as a click; the page's own flow is covered by `signInThroughPage`
 * in auth.spec.ts. The wallet is still injected (with `opts`): pages that sign (withdrawals) use it.
 * `base`: the origin of a server of the spec's own (default: the config's baseURL).
 */
export async function signIn(page: Page, wallet: TestWallet, opts: InjectOptions & { base?: string } = {}) {
  const { base = "", ...inject } = opts;
  await injectWallet(page, wallet, inject);
  const req = page.context().request;
  const server = (await (await req.post(`${base}/api/auth/nonce`)).json()) as { nonce: string; uri: string; domain: string };
  const { csrfToken } = (await (await req.get(`${base}/api/auth/csrf`)).json()) as { csrfToken: string };
  const issuedAt = new Date();
  const message = createSiweMessage({
    domain: server.domain,
    address: wallet.account.address,
    statement: "Sign in to the reseller dashboard. This request costs nothing and sends no transaction.",
    uri: server.uri,
    version: "1",
    chainId: 1,
    nonce: server.nonce,
    issuedAt,
    expirationTime: new Date(issuedAt.getTime() + 10 * 60_000),
  });
  const signature = await wallet.account.signMessage({ message });
  wallet.signed.push({ message, signature });
  const res = await req.post(`${base}/api/auth/callback/siwe`, { form: { csrfToken, message, signature, json: "true" } });
  const { url } = (await res.json()) as { url: string };
  expect(new URL(url).searchParams.get("error"), "sign-in refused").toBeNull();
  await page.goto(`${base}/dashboard`);
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
}

/** Signs in through the real page: Connect wallet, sign, land on the dashboard. */
export async function signInThroughPage(page: Page, wallet: TestWallet) {
  await injectWallet(page, wallet);
  await page.goto("/signin");
  await page.getByRole("button", { name: "Connect wallet" }).click();
  await page.waitForURL("**/dashboard");
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
}

export async function createKeyInUi(page: Page, name: string): Promise<string> {
  await page.goto("/dashboard/keys");
  await page.getByLabel("Key name").fill(name);
  await page.getByRole("button", { name: "Create key" }).click();
  const key = await page.getByTestId("new-key").inputValue();
  expect(key).toMatch(/^rsk_live_[1-9A-HJ-NP-Za-km-z]{20,40}$/);
  return key;
}

export async function setMarkupInUi(page: Page, bps: number) {
  await page.goto("/dashboard/settings");
  await page.getByLabel("Markup in basis points").fill(String(bps));
  await page.getByRole("button", { name: "Save markup" }).click();
  await expect(page.getByText(`Saved: new orders use ${bps} bps`)).toBeVisible();
}

export async function apiContext(baseURL: string): Promise<APIRequestContext> {
  return pwRequest.newContext({ baseURL });
}

export const keyHeader = (key?: string): Record<string, string> => (key ? { "X-API-Key": key } : {});

export interface Estimate {
  fromCurrency: string;
  toCurrency: string;
  fromAmount: number;
  toAmount: number;
  rate: number;
  fee: string;
}

export async function estimate(api: APIRequestContext, key: string | undefined, q = "from=btc&to=eth&amount=0.1") {
  const res = await api.get(`/api/v1/estimate?${q}`, { headers: keyHeader(key) });
  return { status: res.status(), body: (await res.json()) as Estimate & { error?: { code: string } } };
}

/** A checksummed Ethereum address nobody uses: a payout address for ETH orders. */
export const ethAddress = () => privateKeyToAccount(generatePrivateKey()).address;

export interface OrderStatus {
  id: string;
  status: string;
  toAmount: number;
  fromAmount: number;
}

export async function createOrder(api: APIRequestContext, key: string, body: Record<string, unknown>) {
  const res = await api.post("/api/v1/exchange", { headers: keyHeader(key), data: body });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as OrderStatus & { payinAddress: string };
}

export async function driveToFinished(api: APIRequestContext, key: string, id: string) {
  const dep = await api.post(`/api/v1/sandbox/exchange/${id}/deposit`, { headers: keyHeader(key), data: {} });
  expect(dep.status(), await dep.text()).toBe(200);
  await expect
    .poll(
      async () => {
        const r = await api.get(`/api/v1/exchange/${id}`, { headers: keyHeader(key) });
        return ((await r.json()) as OrderStatus).status;
      },
      { timeout: 120_000, intervals: [200] },
    )
    .toBe("finished");
}

/**
 * The ledger check (`npm run cli -- ledger:check --full`) against a test server's database: throws
 * with the first violation. Run after a spec's own server (full: the databases are small, and a
 * full check trusts no checkpoint), and for the shared servers once at the end (global-teardown.ts).
 */
export async function assertLedgerConsistent(databaseUrl: string) {
  const r = await runCliProcess(databaseUrl, ["ledger:check", "--full"], { LOG_LEVEL: "warn" });
  if (r.code !== 0) throw new Error(`ledger check failed on ${databaseUrl}:\n${r.out}${r.err}`);
}

/** The reseller's id, as its referral link on the Widgets page gives it (/x/<id>). */
export async function resellerIdOf(page: Page): Promise<string> {
  await page.goto("/dashboard/widgets");
  const link = (await page.locator("figure", { hasText: "Referral link" }).first().locator("code").textContent()) ?? "";
  const m = /\/x\/([1-9A-HJ-NP-Za-km-z]+)/.exec(link);
  expect(m).not.toBeNull();
  return m![1];
}

/** An order made through the hosted page's own API (as the page's script would), with its status link. */
export async function hostedApiOrder(api: APIRequestContext, resellerId: string, address: string) {
  const res = await api.post("/api/hosted/orders", {
    headers: { "Sec-Fetch-Site": "same-origin" },
    data: { r: resellerId, from: "btc", to: "eth", amount: "0.1", address },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as { token: string; statusPath: string; order: { id: string } };
}

/** The sandbox's deposit on a hosted order, then its status read until it is finished. */
export async function finishHostedOrder(api: APIRequestContext, id: string, token: string) {
  const h = { "Sec-Fetch-Site": "same-origin", "X-Order-Token": token };
  const dep = await api.post(`/api/hosted/orders/${id}/deposit`, { headers: h });
  expect(dep.status(), await dep.text()).toBe(200);
  await expect
    .poll(async () => ((await (await api.get(`/api/hosted/orders/${id}`, { headers: h })).json()) as { status: string }).status, {
      timeout: 120_000,
      intervals: [200],
    })
    .toBe("finished");
}

/** A widget made on the dashboard's Widgets page; its id. */
export async function createWidgetInUi(page: Page, opts: { name: string; markup: number; origins: string[] }): Promise<string> {
  await page.goto("/dashboard/widgets");
  await page.getByTestId("new-widget").click();
  await page.getByTestId("widget-name").fill(opts.name);
  await page.getByTestId("widget-markup").fill(String(opts.markup));
  await page.getByTestId("widget-origins").fill(opts.origins.join("\n"));
  await page.getByTestId("create-widget").click();
  const card = page.getByTestId("widget-card").filter({ hasText: opts.name });
  await expect(card).toBeVisible();
  const id = await card.getAttribute("data-widget-id");
  expect(id).toMatch(/^wg/);
  return id!;
}
