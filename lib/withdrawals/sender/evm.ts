import "server-only";
import {
  type Address,
  type Chain,
  createPublicClient,
  defineChain,
  encodeFunctionData,
  erc20Abi,
  formatEther,
  type Hex,
  http,
  keccak256,
  type Transport,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { PayoutSender, PayoutTransfer } from "./types";

// The real sender: a viem client against the payout chain's JSON-RPC node, signing locally
// with the operator's hot wallet key (EIP-1559 transactions). It never decides to pay: the
// processor persists the signed bytes first and asks it to (re)broadcast exactly those.

/** Test hook: make one JSON-RPC method fail before the node sees the call, or after it answered. */
export type RpcFault = (method: string) => "before" | "after" | null;

const NATIVE_TRANSFER_GAS = 21_000n;
/**
 * A fixed gas limit for an ERC-20 transfer (a plain one uses ~35-65k; unused gas is not
 * charged). Not estimated: an estimate fails for a transfer that would revert, and the
 * processor must be able to send it and record the revert (the withdrawal then fails and
 * its balances are restored) rather than retry forever.
 */
const TOKEN_TRANSFER_GAS = 100_000n;

/** Errors that mean "the node already has (or mined) this transaction": not a failure of a rebroadcast. */
const ALREADY_SENT = /already known|known transaction|already imported|nonce too low|transaction already exists|AlreadyKnown/i;

export function createEvmSender(opts: { rpcUrl: string; chainId: number; privateKey: Hex; rpcFault?: RpcFault }): PayoutSender {
  const account = privateKeyToAccount(opts.privateKey);
  const chain: Chain = defineChain({
    id: opts.chainId,
    name: `chain ${opts.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [opts.rpcUrl] } },
  });
  const base = http(opts.rpcUrl, { retryCount: 1, timeout: 15_000 });
  const transport: Transport = (params) => {
    const t = base(params);
    return {
      ...t,
      async request(args: { method: string; params?: unknown }, o?: unknown) {
        if (opts.rpcFault?.(args.method) === "before") throw new Error(`injected RPC failure before ${args.method}`);
        const r = await (t.request as (a: unknown, o?: unknown) => Promise<unknown>)(args, o);
        if (opts.rpcFault?.(args.method) === "after") throw new Error(`injected RPC failure after ${args.method}`);
        return r;
      },
    } as ReturnType<Transport>;
  };
  const client = createPublicClient({ chain, transport, cacheTime: 0 });

  const transferCall = (t: { to: Address; token: Address | null; amount: bigint }) =>
    t.token
      ? { to: t.token, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [t.to, t.amount] }) }
      : { to: t.to, value: t.amount, data: undefined };

  return {
    kind: "evm",
    chainId: opts.chainId,
    address: account.address,
    async shortfall({ token, amount }) {
      const fees = await client.estimateFeesPerGas();
      const eth = await client.getBalance({ address: account.address });
      if (token) {
        const held = await client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [account.address] });
        if (held < amount) return `hot wallet holds ${held} base units of the token, the payout needs ${amount}`;
      }
      const gas = token ? TOKEN_TRANSFER_GAS : NATIVE_TRANSFER_GAS;
      const needEth = (token ? 0n : amount) + gas * fees.maxFeePerGas;
      if (eth < needEth)
        return `hot wallet holds ${formatEther(eth)} ETH, the payout needs ${formatEther(needEth)} ETH with its network fee`;
      return null;
    },
    pendingNonce: () => client.getTransactionCount({ address: account.address, blockTag: "pending" }),
    minedNonce: () => client.getTransactionCount({ address: account.address, blockTag: "latest" }),
    async sign(t: PayoutTransfer) {
      const c = transferCall(t);
      const fees = await client.estimateFeesPerGas();
      const gas = t.token ? TOKEN_TRANSFER_GAS : NATIVE_TRANSFER_GAS;
      const raw = await account.signTransaction({
        type: "eip1559",
        chainId: opts.chainId,
        nonce: t.nonce,
        to: c.to,
        value: c.value,
        data: c.data,
        gas,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      return { raw, hash: keccak256(raw) };
    },
    async broadcast(raw) {
      try {
        await client.request({ method: "eth_sendRawTransaction", params: [raw] });
      } catch (e) {
        const text = e instanceof Error ? `${e.message} ${(e as { details?: string }).details ?? ""}` : String(e);
        if (!ALREADY_SENT.test(text)) throw e;
      }
    },
    async receipt(hash) {
      const r = await client.request({ method: "eth_getTransactionReceipt", params: [hash] });
      if (!r) return null;
      return { status: r.status === "0x1" ? "success" : "reverted", blockNumber: BigInt(r.blockNumber) };
    },
    blockNumber: () => client.getBlockNumber({ cacheTime: 0 }),
  };
}
