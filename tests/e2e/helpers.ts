import path from "node:path";
import { type APIRequestContext, expect, type Page, request as pwRequest, test } from "@playwright/test";
import { type Hex, hexToString, isHex } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { runCli } from "../support/cli";

// Test helpers. Nothing here stubs the product: the wallet signs with a real secp256k1
// key (viem), the server verifies it, and the API is called over HTTP.

export interface TestWallet {
  account: PrivateKeyAccount;
  privateKey: Hex;
  /** Every message the page asked the wallet to sign, with its signature. */
  signed: { message: string; signature: Hex }[];
  /** Every EIP-712 typed-data JSON the page asked the wallet to sign (eth_signTypedData_v4). */
  signedTypedData: string[];
}

export function newWallet(privateKey: Hex = generatePrivateKey()): TestWallet {
  return { account: privateKeyToAccount(privateKey), privateKey, signed: [], signedTypedData: [] };
}

/**
 * Gives the page an injected EIP-1193 provider (window.ethereum), the way a wallet extension
 * does. personal_sign is forwarded to Node, where the viem account signs the message.
 */
export async function injectWallet(page: Page, wallet: TestWallet, opts: { chainId?: number; signer?: TestWallet } = {}) {
  await page.exposeFunction("__e2eWalletSign", async (payload: string, address: string) => {
    if (address.toLowerCase() !== wallet.account.address.toLowerCase()) throw new Error("personal_sign for an unknown account");
    // Wallets receive personal_sign data hex-encoded (dapps are told to send it so).
    const message = isHex(payload) ? hexToString(payload) : payload;
    // `signer`: a broken wallet that signs with another key than the account it reports.
    const signature = await (opts.signer ?? wallet).account.signMessage({ message });
    wallet.signed.push({ message, signature });
    return signature;
  });
  await page.exposeFunction("__e2eWalletSignTypedData", async (address: string, json: string) => {
    if (address.toLowerCase() !== wallet.account.address.toLowerCase()) throw new Error("eth_signTypedData_v4 for an unknown account");
    wallet.signedTypedData.push(json);
    // What a wallet does with the v4 argument: sign the typed data it describes (uint256 fields
    // of a withdrawal arrive as decimal strings).
    const d = JSON.parse(json);
    const { EIP712Domain: _, ...types } = d.types;
    const message = { ...d.message, amountBaseUnits: BigInt(d.message.amountBaseUnits), expiresAt: BigInt(d.message.expiresAt) };
    return (opts.signer ?? wallet).account.signTypedData({ domain: d.domain, types, primaryType: d.primaryType, message });
  });
  await page.addInitScript(
    ({ address, chainIdHex }) => {
      const w = window as unknown as {
        ethereum?: unknown;
        __e2eWalletSign: (payload: string, address: string) => Promise<string>;
        __e2eWalletSignTypedData: (address: string, json: string) => Promise<string>;
      };
      const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });
      w.ethereum = {
        isE2EWallet: true,
        async request({ method, params }: { method: string; params?: unknown[] }) {
          switch (method) {
            case "eth_requestAccounts":
            case "eth_accounts":
              return [address];
            case "eth_chainId":
              return chainIdHex;
            case "personal_sign": {
              const [data, from] = (params ?? []) as [string, string];
              return w.__e2eWalletSign(data, from);
            }
            case "eth_signTypedData_v4": {
              const [from, json] = (params ?? []) as [string, string];
              return w.__e2eWalletSignTypedData(from, json);
            }
            default:
              throw rpcError(4200, `The test wallet does not support ${method}`);
          }
        },
        on() {},
        removeListener() {},
      };
    },
    { address: wallet.account.address, chainIdHex: `0x${(opts.chainId ?? 1).toString(16)}` },
  );
}

/** Signs in through the real page: Connect wallet, sign, land on the dashboard. */
export async function signIn(page: Page, wallet: TestWallet) {
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
 * The ledger check (`npm run cli -- ledger:check`) against a test server's database: throws
 * with the first violation. Run after each e2e test file, like the HTTP suites do.
 */
export async function assertLedgerConsistent(databaseUrl: string) {
  const r = await runCli(databaseUrl, ["ledger:check"], { LOG_LEVEL: "warn" });
  if (r.code !== 0) throw new Error(`ledger check failed on ${databaseUrl}:\n${r.out}${r.err}`);
}

/** After the current spec file: the ledger check on the shared test server's database (as the HTTP suites do after every file). */
export function checkLedgerAfterFile() {
  test.afterAll(async () => {
    const dir = process.env.E2E_DATA_DIR;
    if (!dir || process.env.E2E_BASE_URL) return; // a server we did not start: its database is not ours to read
    await assertLedgerConsistent(`file:${path.join(dir, "e2e.db")}`);
  });
}
