import { getAddress, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type AnvilNode, startAnvil } from "../support/anvil";
import { readDashboard, signInOverHttp } from "../support/dashboard";
import { migratedDatabase, type RunningServer, startServer, type TestDatabase } from "../support/server";

// A smart-contract wallet (ERC-1271) signs in to a server that has an RPC node for its chain:
// the wallet contract is deployed on a local anvil chain, and the server asks it about the
// signature. The chain is what matters here, not the database: this runs once, on SQLite.
const sqliteOnly = inject("dbKind") !== "sqlite" || process.env.TEST_API_ONLY === "1";

describe.skipIf(sqliteOnly)("smart-contract wallet sign-in (EIP-1271, anvil)", () => {
  const owner = privateKeyToAccount(generatePrivateKey());
  let node: AnvilNode;
  let db: TestDatabase;
  let server: RunningServer;
  let wallet: Hex;

  beforeAll(async () => {
    node = await startAnvil();
    wallet = getAddress(await node.deploy("ERC1271Wallet", [owner.address]));
    db = await migratedDatabase("sqlite");
    server = await startServer({
      databaseUrl: db.url,
      env: { SIWE_CHAIN_IDS: `1,${node.chainId}`, SIWE_RPC_URL: `${node.chainId}=${node.rpcUrl}`, WORKER_IN_PROCESS: "false" },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
    await node?.stop();
  });

  it("the owner's signature signs the wallet in; the session is the contract's", async () => {
    const nonce = await (await fetch(`${server.baseUrl}/api/auth/nonce`, { method: "POST" })).json();
    expect(nonce.contractWalletChainIds).toEqual([node.chainId]);
    const r = await signInOverHttp(server.baseUrl, owner, { address: wallet, chainId: node.chainId });
    expect(r.error).toBeNull();
    const session = await (await fetch(`${server.baseUrl}/api/auth/session`, { headers: { cookie: r.cookie } })).json();
    expect(session.wallet).toBe(wallet.toLowerCase());
    const page = await fetch(`${server.baseUrl}/dashboard`, { headers: { cookie: r.cookie }, redirect: "manual" });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(wallet);
    expect((await readDashboard(server.baseUrl, r.cookie, "settings", {})).status).toBe(200);
  });

  it("a signature the wallet contract does not accept is refused", async () => {
    const stranger = privateKeyToAccount(generatePrivateKey());
    expect(await signInOverHttp(server.baseUrl, stranger, { address: wallet, chainId: node.chainId })).toEqual({
      error: "BAD_SIGNATURE",
      cookie: "",
    });
    // The owner's own address is an ordinary wallet and signs in as itself.
    expect((await signInOverHttp(server.baseUrl, owner, { chainId: node.chainId })).error).toBeNull();
  });
});
