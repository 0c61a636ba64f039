import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilNode, loadContract, startAnvil } from "./anvil";

// The harness other suites build on: a fresh chain on a free port, funded accounts that
// sign locally, contracts deployed from the committed artifacts, and a clean stop.
describe("anvil test harness", () => {
  let node: AnvilNode;
  beforeAll(async () => {
    node = await startAnvil({ chainId: 31337 });
  }, 60_000);
  afterAll(() => node?.stop());

  it("answers on its port with the chain id asked for, with funded accounts", async () => {
    expect(node.rpcUrl).toBe(`http://127.0.0.1:${node.port}`);
    expect(await node.publicClient.getChainId()).toBe(31337);
    expect(node.accounts).toHaveLength(10);
    // anvil's first default account, from its well-known mnemonic.
    expect(node.accounts[0].address).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    expect(await node.publicClient.getBalance({ address: node.accounts[1].address })).toBe(10_000n * 10n ** 18n);
  });

  it("deploys a contract from the committed artifacts and sends ETH", async () => {
    const owner = node.accounts[2];
    const address = await node.deploy("ERC1271Wallet", [owner.address]);
    const { abi } = loadContract("ERC1271Wallet");
    expect(await node.publicClient.readContract({ address, abi, functionName: "owner" })).toBe(owner.address);
    const to = node.accounts[3].address;
    const before = await node.publicClient.getBalance({ address: to });
    const hash = await node
      .walletClient(node.accounts[4])
      .sendTransaction({ to, value: 12345n, account: node.accounts[4], chain: node.chain });
    await node.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect((await node.publicClient.getBalance({ address: to })) - before).toBe(12345n);
  });

  it("stops: the port no longer answers", async () => {
    const other = await startAnvil({ chainId: 8453 });
    expect(await other.publicClient.getChainId()).toBe(8453);
    await other.stop();
    await expect(fetch(other.rpcUrl, { method: "POST" })).rejects.toThrow();
  }, 60_000);
});
