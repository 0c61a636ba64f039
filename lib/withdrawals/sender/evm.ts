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
  isErc6492Signature,
  keccak256,
  type Transport,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { PayoutPayment, PayoutSender, PayoutTransfer } from "./types";

// The real sender: a viem client against the payout chain's JSON-RPC node, signing locally
// with the operator's hot wallet key (EIP-1559 transactions). It never decides to pay: the
// processor persists the signed bytes first and asks it to (re)broadcast exactly those.

/** Test hook: make one JSON-RPC method fail before the node sees the call, or after it answered. */
export type RpcFault = (method: string) => "before" | "after" | null;

const NATIVE_TRANSFER_GAS = 21_000n;
/**
 * The gas limit of an ERC-20 transfer whose estimate says it would revert (a frozen
 * recipient, a paused token): the processor must still be able to send it and record the
 * revert (the withdrawal then fails and its balances are restored) rather than retry forever.
 */
const REVERTING_TOKEN_TRANSFER_GAS = 100_000n;
/** An estimate that failed because the call would revert (not because the node could not answer). */
const WOULD_REVERT = /revert|execution reverted|invalid opcode|out of gas/i;

/** The node refuses to hold a transaction whose max fee is below the current base fee (anvil does; geth queues it). */
const BELOW_BASE_FEE = /max fee per gas less than block base fee|fee cap less than block base fee|feecap too low|underpriced/i;
/** Errors that mean "the node already has (or mined) this transaction": not a failure of a rebroadcast. */
const ALREADY_SENT = /already known|known transaction|already imported|nonce too low|transaction already exists|AlreadyKnown/i;

export function createEvmSender(opts: {
  rpcUrl: string;
  chainId: number;
  privateKey: Hex;
  /** Percent added to an ERC-20 transfer's gas estimate (PAYOUT_GAS_MARGIN_PERCENT). */
  gasMarginPercent?: number;
  rpcFault?: RpcFault;
}): PayoutSender {
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

  const transferCall = (t: PayoutPayment) =>
    t.token
      ? { to: t.token, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [t.to, t.amount] }) }
      : { to: t.to, value: t.amount, data: undefined };
  const margin = BigInt(opts.gasMarginPercent ?? 20);

  const balance = (token: Address | null) =>
    token
      ? client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [account.address] })
      : client.getBalance({ address: account.address });

  return {
    kind: "evm",
    chainId: opts.chainId,
    address: account.address,
    async shortfall({ token, amount, gas, maxFeePerGas }) {
      const eth = await balance(null);
      if (token) {
        const held = await balance(token);
        if (held < amount) return `hot wallet holds ${held} base units of the token, the payout needs ${amount}`;
      }
      const needEth = (token ? 0n : amount) + gas * maxFeePerGas;
      if (eth < needEth)
        return `hot wallet holds ${formatEther(eth)} ETH, the payout needs ${formatEther(needEth)} ETH with its network fee`;
      return null;
    },
    async gasLimit(p) {
      if (!p.token) return NATIVE_TRANSFER_GAS;
      const c = transferCall(p);
      try {
        const estimate = await client.estimateGas({ account: account.address, to: c.to, data: c.data, value: 0n });
        // Rounded up: the limit is never below the estimate plus the margin.
        return (estimate * (100n + margin) + 99n) / 100n;
      } catch (e) {
        const text = e instanceof Error ? `${e.message} ${(e as { details?: string }).details ?? ""}` : String(e);
        if (WOULD_REVERT.test(text)) return REVERTING_TOKEN_TRANSFER_GAS;
        throw e;
      }
    },
    async fees() {
      const f = await client.estimateFeesPerGas();
      return { maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas };
    },
    balance,
    pendingNonce: () => client.getTransactionCount({ address: account.address, blockTag: "pending" }),
    minedNonce: () => client.getTransactionCount({ address: account.address, blockTag: "latest" }),
    async sign(t: PayoutTransfer) {
      const c = transferCall(t);
      const raw = await account.signTransaction({
        type: "eip1559",
        chainId: opts.chainId,
        nonce: t.nonce,
        to: c.to,
        value: c.value,
        data: c.data,
        gas: t.gas,
        maxFeePerGas: t.maxFeePerGas,
        maxPriorityFeePerGas: t.maxPriorityFeePerGas,
      });
      return { raw, hash: keccak256(raw) };
    },
    async broadcast(raw) {
      try {
        await client.request({ method: "eth_sendRawTransaction", params: [raw] });
        return "accepted";
      } catch (e) {
        const text = e instanceof Error ? `${e.message} ${(e as { details?: string }).details ?? ""}` : String(e);
        if (ALREADY_SENT.test(text)) return "accepted";
        if (BELOW_BASE_FEE.test(text)) return "underpriced";
        throw e;
      }
    },
    async receipt(hash) {
      const r = await client.request({ method: "eth_getTransactionReceipt", params: [hash] });
      if (!r) return null;
      return {
        status: r.status === "0x1" ? "success" : "reverted",
        blockNumber: BigInt(r.blockNumber),
        blockHash: r.blockHash,
        fee: BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice),
      };
    },
    blockNumber: () => client.getBlockNumber({ cacheTime: 0 }),
    async blockHashAt(n) {
      const b = await client.request({ method: "eth_getBlockByNumber", params: [`0x${n.toString(16)}`, false] });
      return b?.hash ?? null;
    },
    async isValidContractSignature({ address, signature, typedData }) {
      // Asked first, so that a node that cannot answer throws here (verifyTypedData would say
      // "invalid"); no code and no ERC-6492 wrapper: not a contract wallet.
      const code = await client.getCode({ address });
      if ((!code || code === "0x") && !isErc6492Signature(signature)) return false;
      // viem asks the contract's isValidSignature (through the ERC-6492 validator, so an
      // undeployed account with its factory data works too).
      return client.verifyTypedData({ address, signature, ...typedData } as Parameters<typeof client.verifyTypedData>[0]);
    },
  };
}
