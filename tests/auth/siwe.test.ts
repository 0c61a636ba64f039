import { getAddress, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { issueNonce } from "@/lib/auth/nonce";
import { verifySiweSignIn } from "@/lib/auth/siwe";
import type { Db } from "@/lib/db/client";
import { type AnvilNode, startAnvil } from "../support/anvil";
import { freePort } from "../support/server";
import { settingsForTests } from "../support/settings";
import { tempSqlite } from "../support/sqlite-db";

// verifySiweSignIn on a real database (nonces) and, for smart-contract wallets, a real chain:
// an ERC-1271 wallet contract deployed on anvil. The Playwright and HTTP suites check the same
// refusals through next-auth; here every branch is reached directly.

const ORIGIN = "http://localhost:3999";
let db: Db;
let cleanup: () => Promise<void>;
const settings = settingsForTests();

const configure = (env: Record<string, string | undefined>) =>
  settings.set({ APP_URL: ORIGIN, SIWE_CHAIN_IDS: "1", SIWE_RPC_URL: "", ...env });

beforeAll(async () => {
  ({ db, cleanup } = await tempSqlite());
});
afterAll(async () => {
  await cleanup();
});

const owner = privateKeyToAccount(generatePrivateKey());
type Fields = Partial<Parameters<typeof createSiweMessage>[0]>;

async function signed(fields: Fields = {}, signer = owner) {
  const { nonce } = await issueNonce(db);
  const message = createSiweMessage({
    domain: "localhost:3999",
    address: signer.address,
    statement: "Sign in to the reseller dashboard.",
    uri: ORIGIN,
    version: "1",
    chainId: 1,
    nonce,
    issuedAt: new Date(),
    expirationTime: new Date(Date.now() + 10 * 60_000),
    ...fields,
  });
  return { message, signature: await signer.signMessage({ message }) };
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "OK",
    (e: { code?: string }) => e.code ?? String(e),
  );

describe("EIP-4361 sign-in messages (ordinary wallets)", () => {
  beforeEach(() => configure({}));

  it("accepts the message the sign-in page builds, once", async () => {
    const s = await signed();
    const ok = await verifySiweSignIn(db, s);
    expect(ok).toEqual({ walletAddress: owner.address, chainId: 1, contractWallet: false });
    expect(await codeOf(verifySiweSignIn(db, s))).toBe("NONCE_INVALID");
  });

  it("refuses every binding to another site, chain or time, and forged or malformed input", async () => {
    const stranger = privateKeyToAccount(generatePrivateKey());
    const cases: [string, () => Promise<{ message: string; signature: string }>, string][] = [
      ["another domain", () => signed({ domain: "evil.example", uri: "https://evil.example" }), "WRONG_DOMAIN"],
      ["same host, another port", () => signed({ domain: "localhost:1" }), "WRONG_DOMAIN"],
      ["another scheme", () => signed({ scheme: "https" }), "WRONG_DOMAIN"],
      ["URI elsewhere", () => signed({ uri: "https://evil.example/login" }), "WRONG_URI"],
      ["URI on another port", () => signed({ uri: "http://localhost:4000" }), "WRONG_URI"],
      ["another chain", () => signed({ chainId: 5 }), "WRONG_CHAIN"],
      ["issued an hour ago", () => signed({ issuedAt: new Date(Date.now() - 60 * 60_000), expirationTime: undefined }), "MESSAGE_EXPIRED"],
      ["expired a second ago", () => signed({ expirationTime: new Date(Date.now() - 1000) }), "MESSAGE_EXPIRED"],
      ["issued in the future", () => signed({ issuedAt: new Date(Date.now() + 60 * 60_000) }), "MESSAGE_NOT_YET_VALID"],
      ["not valid before tomorrow", () => signed({ notBefore: new Date(Date.now() + 86_400_000) }), "MESSAGE_NOT_YET_VALID"],
      ["signed by another key", async () => ({ ...(await signed()), signature: (await signed({}, stranger)).signature }), "BAD_SIGNATURE"],
      [
        "signature of another message",
        async () => {
          const s = await signed();
          return { message: s.message, signature: await owner.signMessage({ message: `${s.message} ` }) };
        },
        "BAD_SIGNATURE",
      ],
      [
        "a signature that is no ECDSA signature",
        async () => ({ ...(await signed()), signature: `0x${"ab".repeat(100)}` }),
        "BAD_SIGNATURE",
      ],
      ["a signature that is not hex", async () => ({ ...(await signed()), signature: "not-hex" }), "BAD_SIGNATURE"],
      ["a nonce the server never issued", () => signed({ nonce: "0123456789abcdef0123456789abcdef" }), "NONCE_INVALID"],
      [
        "text appended after the signed fields",
        async () => {
          const message = `${(await signed()).message}\nURI: https://evil.example`;
          return { message, signature: await owner.signMessage({ message }) };
        },
        "MALFORMED_MESSAGE",
      ],
      [
        "a field the grammar accepts in a non-canonical spelling (Chain ID: 01)",
        async () => {
          const message = (await signed()).message.replace("Chain ID: 1\n", "Chain ID: 01\n");
          return { message, signature: await owner.signMessage({ message }) };
        },
        "MALFORMED_MESSAGE",
      ],
      [
        "an address without its EIP-55 checksum",
        async () => {
          const s = await signed();
          const message = s.message.replace(owner.address, owner.address.toLowerCase());
          return { message, signature: await owner.signMessage({ message }) };
        },
        "MALFORMED_MESSAGE",
      ],
      [
        "a message that is no EIP-4361 message",
        async () => ({ message: "hello", signature: await owner.signMessage({ message: "hello" }) }),
        "MALFORMED_MESSAGE",
      ],
    ];
    for (const [name, make, code] of cases) {
      const { message, signature } = await make();
      expect(await codeOf(verifySiweSignIn(db, { message, signature })), name).toBe(code);
    }
    // Not strings at all: refused before anything else runs.
    expect(await codeOf(verifySiweSignIn(db, { message: 42, signature: "0x" }))).toBe("MALFORMED_MESSAGE");
    expect(await codeOf(verifySiweSignIn(db, { message: "x".repeat(5000), signature: "0x" }))).toBe("MALFORMED_MESSAGE");
  });

  it("a refused message leaves its nonce unused: the nonce is consumed last", async () => {
    const s = await signed({ chainId: 5 });
    expect(await codeOf(verifySiweSignIn(db, s))).toBe("WRONG_CHAIN");
    const nonce = /Nonce: (\w+)/.exec(s.message)![1];
    const row = await db.authNonce.findUnique({ where: { nonce } });
    expect(row?.usedAt).toBeNull();
  });

  it("an https origin accepts a message that names its scheme", async () => {
    configure({ APP_URL: "https://dash.example" });
    const s = await signed({ domain: "dash.example", uri: "https://dash.example", scheme: "https" });
    expect((await verifySiweSignIn(db, s)).walletAddress).toBe(owner.address);
    const plain = await signed({ domain: "dash.example", uri: "https://dash.example", scheme: "http" });
    expect(await codeOf(verifySiweSignIn(db, plain))).toBe("WRONG_DOMAIN");
  });
});

describe("smart-contract wallets (EIP-1271) on anvil", () => {
  let node: AnvilNode;
  let wallet: Hex;
  const chainOpts = () => ({ chainId: node.chainId });

  beforeAll(async () => {
    node = await startAnvil();
    wallet = getAddress(await node.deploy("ERC1271Wallet", [owner.address]));
  }, 60_000);
  afterAll(() => node?.stop());
  afterEach(() => configure({}));

  /** A message for the contract's address, signed by `signer` (the owner signs for the wallet). */
  const forWallet = (signer = owner) => signed({ address: wallet, ...chainOpts() }, signer);

  it("with an RPC node for the chain, the owner's signature signs the wallet in", async () => {
    configure({ SIWE_CHAIN_IDS: `1,${node.chainId}`, SIWE_RPC_URL: `${node.chainId}=${node.rpcUrl}` });
    const ok = await verifySiweSignIn(db, await forWallet());
    expect(ok).toEqual({ walletAddress: wallet, chainId: node.chainId, contractWallet: true });
  });

  it("a signature the contract does not accept is refused, and its nonce stays unused", async () => {
    configure({ SIWE_CHAIN_IDS: String(node.chainId), SIWE_RPC_URL: `${node.chainId}=${node.rpcUrl}` });
    const s = await forWallet(privateKeyToAccount(generatePrivateKey()));
    expect(await codeOf(verifySiweSignIn(db, s))).toBe("BAD_SIGNATURE");
    const nonce = /Nonce: (\w+)/.exec(s.message)![1];
    expect((await db.authNonce.findUnique({ where: { nonce } }))?.usedAt).toBeNull();
    // Ordinary wallets keep working on the same chain.
    expect((await verifySiweSignIn(db, await signed(chainOpts()))).contractWallet).toBe(false);
  });

  it("without an RPC node for the chain, a contract wallet cannot sign in", async () => {
    configure({ SIWE_CHAIN_IDS: String(node.chainId), SIWE_RPC_URL: `1=${node.rpcUrl}` });
    expect(await codeOf(verifySiweSignIn(db, await forWallet()))).toBe("BAD_SIGNATURE");
  });

  it("a node that serves another chain, or none at all, is not trusted: the sign-in fails as unchecked", async () => {
    // anvil serves chain 31337; configured as the node of chain 1 it must not answer for chain 1.
    configure({ SIWE_CHAIN_IDS: "1", SIWE_RPC_URL: `1=${node.rpcUrl}` });
    expect(await codeOf(verifySiweSignIn(db, await signed({ address: wallet, chainId: 1 })))).toBe("CONTRACT_WALLET_UNCHECKED");
    configure({ SIWE_CHAIN_IDS: String(node.chainId), SIWE_RPC_URL: `${node.chainId}=http://127.0.0.1:${await freePort()}` });
    expect(await codeOf(verifySiweSignIn(db, await forWallet()))).toBe("CONTRACT_WALLET_UNCHECKED");
  });
});
