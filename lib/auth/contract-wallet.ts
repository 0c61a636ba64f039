import "server-only";
import { createPublicClient, type Hex, http, type PublicClient } from "viem";
import { getRpcUrls } from "./origin";

// Smart-contract wallets (a Safe, any ERC-1271 account) cannot produce an ordinary ECDSA
// signature of their own address: the contract decides through isValidSignature(hash, sig).
// Asking it needs a node of the chain the message names, from SIWE_RPC_URL.

/** The node could not be asked (down, timed out, or it serves another chain). */
export class RpcUnavailableError extends Error {
  constructor(
    readonly chainId: number,
    cause: unknown,
  ) {
    super(`the JSON-RPC node for chain ${chainId} could not be used`, { cause });
    this.name = "RpcUnavailableError";
  }
}

const clients = new Map<string, Promise<PublicClient>>();

/** One client per (chain, URL), checked once to really serve that chain: a node of another
 *  chain would answer for a different contract at the same address. */
function clientFor(chainId: number, url: string): Promise<PublicClient> {
  const key = `${chainId} ${url}`;
  let client = clients.get(key);
  if (!client) {
    client = (async () => {
      const c = createPublicClient({ transport: http(url, { timeout: 10_000, retryCount: 1 }) });
      const served = await c.getChainId();
      if (served !== chainId) throw new Error(`SIWE_RPC_URL for chain ${chainId} serves chain ${served}`);
      return c as PublicClient;
    })();
    clients.set(key, client);
    // A failed check is not remembered: the node may be back on the next sign-in.
    client.catch(() => clients.delete(key));
  }
  return client;
}

/** True when an RPC node is configured for the chain (otherwise contract wallets cannot sign in there). */
export const canCheckContractWallets = (chainId: number) => getRpcUrls().has(chainId);

/**
 * Whether `address` accepts `signature` for the EIP-191 hash of `message`, asked on chain
 * `chainId`. viem's verifyMessage calls the account's ERC-1271 isValidSignature (through the
 * ERC-6492 validator, so a wallet that is not deployed yet but carries its factory data works
 * too). Throws RpcUnavailableError when there is no usable node.
 */
export async function isValidContractWalletSignature(opts: {
  chainId: number;
  address: Hex;
  message: string;
  signature: Hex;
}): Promise<boolean> {
  const url = getRpcUrls().get(opts.chainId);
  if (!url) throw new RpcUnavailableError(opts.chainId, new Error("no SIWE_RPC_URL for this chain"));
  try {
    const client = await clientFor(opts.chainId, url);
    return await client.verifyMessage({ address: opts.address, message: opts.message, signature: opts.signature });
  } catch (e) {
    throw new RpcUnavailableError(opts.chainId, e);
  }
}
