import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import {
  type Abi,
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type PublicClient,
  type WalletClient,
} from "viem";
import { mnemonicToAccount, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";

// A local EVM node for tests: anvil from the @foundry-rs/anvil npm package (its per-platform
// package ships the binary, nothing is downloaded). Each startAnvil() is a fresh chain on a
// free port, ready when it returns; stop() ends it. Shared by the EIP-1271 sign-in tests and
// the withdrawal tests (ETH and ERC-20 payouts).
//
//   const node = await startAnvil();            // chain id 31337, 10 funded accounts
//   const wallet = await node.deploy("ERC1271Wallet", [owner.address]);
//   await node.publicClient.getBalance({ address });
//   await node.stop();

/** anvil's default mnemonic: its accounts are funded at genesis (10,000 ETH each). */
export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";
export const ANVIL_DEFAULT_CHAIN_ID = 31337;

export interface ContractArtifact {
  source: string;
  abi: Abi;
  bytecode: Hex;
}

export interface AnvilNode {
  rpcUrl: string;
  port: number;
  chainId: number;
  chain: Chain;
  /** Funded accounts, with their private keys (derived from ANVIL_MNEMONIC). */
  accounts: PrivateKeyAccount[];
  publicClient: PublicClient;
  /** A wallet client that signs locally with `account` (default: accounts[0]). */
  walletClient(account?: PrivateKeyAccount): WalletClient;
  /**
   * A raw JSON-RPC call, for anvil's own methods: evm_setAutomine, evm_mine,
   * anvil_setNextBlockBaseFeePerGas, evm_snapshot / evm_revert, anvil_reorg, anvil_dropTransaction.
   */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Deploys a contract of tests/support/contracts/artifacts.json; resolves to its address once mined. */
  deploy(contract: string, args?: readonly unknown[], from?: PrivateKeyAccount): Promise<Address>;
  /** Everything anvil printed (for failure messages). */
  logs(): string;
  stop(): Promise<void>;
}

const require = createRequire(import.meta.url);
const ARTIFACTS = path.join(import.meta.dirname, "contracts", "artifacts.json");
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const c of running) c.kill("SIGKILL");
});

/** The anvil executable of this platform, from its @foundry-rs package. */
export function anvilBinary(): string {
  const arch = ({ x64: "amd64", arm64: "arm64" } as Record<string, string>)[process.arch];
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  let dir: string;
  try {
    // The platform package is an optional dependency of @foundry-rs/anvil: resolve it from there.
    const fromAnvil = createRequire(require.resolve("@foundry-rs/anvil/package.json"));
    dir = path.dirname(fromAnvil.resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(`${pkg} is not installed (npm install installs it with @foundry-rs/anvil)`);
  }
  return path.join(dir, "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
}

/** A compiled test contract (see scripts/compile-contracts.mjs). */
export function loadContract(name: string): ContractArtifact {
  const all = JSON.parse(fs.readFileSync(ARTIFACTS, "utf8")) as { contracts: Record<string, ContractArtifact> };
  const c = all.contracts[name];
  if (!c) throw new Error(`no contract ${name} in ${ARTIFACTS} (known: ${Object.keys(all.contracts).join(", ")})`);
  return c;
}

export async function startAnvil(
  opts: { chainId?: number; accounts?: number; blockTimeSeconds?: number; args?: string[] } = {},
): Promise<AnvilNode> {
  const chainId = opts.chainId ?? ANVIL_DEFAULT_CHAIN_ID;
  const accountCount = opts.accounts ?? 10;
  const args = [
    "--host",
    "127.0.0.1",
    "--port",
    "0", // the OS picks a free port; anvil prints it
    "--chain-id",
    String(chainId),
    "--mnemonic",
    ANVIL_MNEMONIC,
    "--accounts",
    String(accountCount),
    ...(opts.blockTimeSeconds ? ["--block-time", String(opts.blockTimeSeconds)] : []),
    ...(opts.args ?? []),
  ];
  const child = spawn(anvilBinary(), args, { stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  let out = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`anvil did not start in 30 s:\n${out}`)), 30_000);
    const fail = (e: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      running.delete(child);
      reject(e);
    };
    const onData = (d: Buffer) => {
      out += d;
      const m = /Listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("error", fail);
    child.once("exit", (code) => fail(new Error(`anvil exited (${code}):\n${out}`)));
  });
  // Keep collecting output after start-up, for diagnostics.
  const rpcUrl = `http://127.0.0.1:${port}`;
  const chain = defineChain({
    id: chainId,
    name: `anvil ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) }) as PublicClient;
  // Ready means answering JSON-RPC with the chain id asked for.
  const served = await publicClient.getChainId();
  if (served !== chainId) throw new Error(`anvil serves chain ${served}, not ${chainId}`);

  const accounts = Array.from({ length: accountCount }, (_, i) => {
    const hd = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: i });
    return privateKeyToAccount(`0x${Buffer.from(hd.getHdKey().privateKey!).toString("hex")}`);
  });
  const walletClient = (account: PrivateKeyAccount = accounts[0]) => createWalletClient({ account, chain, transport: http(rpcUrl) });

  return {
    rpcUrl,
    port,
    chainId,
    chain,
    accounts,
    publicClient,
    walletClient,
    rpc: <T>(method: string, params: unknown[] = []) =>
      (publicClient.request as (a: { method: string; params: unknown[] }) => Promise<T>)({ method, params }),
    async deploy(contract, deployArgs = [], from = accounts[0]) {
      const { abi, bytecode } = loadContract(contract);
      const hash = await walletClient(from).deployContract({ abi, bytecode, args: deployArgs, account: from, chain });
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`deploying ${contract} failed: ${receipt.status}`);
      return receipt.contractAddress;
    },
    logs: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        running.delete(child);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
        child.once("exit", () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill("SIGTERM");
      }),
  };
}
