import { type Eip1193Provider, getInjectedProvider, type ProviderRpcError } from "@/components/auth/eip1193";
import type { PayoutChainInfo, WithdrawalQuote } from "@/lib/dashboard/types";

// The withdrawal page's conversation with the browser wallet. A wallet refuses (MetaMask) or
// mis-signs typed data whose EIP-712 domain names another chain than its active one, so
// before the confirmation is signed the wallet is moved to the payout chain:
// wallet_switchEthereumChain, and wallet_addEthereumChain first when the wallet does not know
// the chain (error 4902). A refusal ends the attempt with the reason; nothing is queued,
// because the server queues a withdrawal only on a valid signature.

const toHex = (n: number) => `0x${n.toString(16)}`;

/** The error code a wallet gave, also when it wraps it (MetaMask mobile: -32603 with data.originalError.code). */
function codeOf(e: unknown): number | undefined {
  const err = e as (ProviderRpcError & { data?: { originalError?: { code?: number } } }) | null;
  return err?.data?.originalError?.code ?? err?.code;
}

const chainLabel = (c: PayoutChainInfo) => `${c.name} (chain id ${c.id})`;

/** The wallet's active chain, or null when it does not say. */
export async function walletChainId(eth: Eip1193Provider): Promise<number | null> {
  const v = await eth.request({ method: "eth_chainId" });
  const n = typeof v === "string" ? Number.parseInt(v, 16) : typeof v === "number" ? v : Number.NaN;
  return Number.isFinite(n) ? n : null;
}

/** Moves the wallet to the payout chain, adding the chain to it when it does not know it. Throws a sentence for the page on refusal. */
export async function switchToChain(eth: Eip1193Provider, chain: PayoutChainInfo): Promise<void> {
  if ((await walletChainId(eth)) === chain.id) return;
  try {
    await eth.request({ method: "wallet_switchEthereumChain", params: [{ chainId: toHex(chain.id) }] });
  } catch (e) {
    const code = codeOf(e);
    if (code === 4001)
      throw new Error(`Your wallet refused to switch to ${chainLabel(chain)}, the chain payouts are made on. Nothing was queued.`);
    if (code !== 4902)
      throw new Error(
        `Your wallet could not switch to ${chainLabel(chain)}: ${(e as Error)?.message ?? String(e)}. Switch it there yourself and try again; nothing was queued.`,
      );
    if (!chain.walletRpcUrl)
      throw new Error(`Your wallet does not know ${chainLabel(chain)}. Add that network to your wallet and try again; nothing was queued.`);
    try {
      await eth.request({
        method: "wallet_addEthereumChain",
        params: [
          {
            chainId: toHex(chain.id),
            chainName: chain.name,
            nativeCurrency: { name: "Ether", symbol: chain.nativeSymbol, decimals: 18 },
            rpcUrls: [chain.walletRpcUrl],
            ...(chain.explorerUrl ? { blockExplorerUrls: [chain.explorerUrl] } : {}),
          },
        ],
      });
      // Adding may or may not switch (it does in MetaMask); ask again, which is a no-op when it did.
      if ((await walletChainId(eth)) !== chain.id)
        await eth.request({ method: "wallet_switchEthereumChain", params: [{ chainId: toHex(chain.id) }] });
    } catch (e2) {
      if (codeOf(e2) === 4001)
        throw new Error(`Your wallet refused to add ${chainLabel(chain)}, the chain payouts are made on. Nothing was queued.`);
      throw new Error(`Your wallet could not add ${chainLabel(chain)}: ${(e2 as Error)?.message ?? String(e2)}. Nothing was queued.`);
    }
  }
  const now = await walletChainId(eth);
  if (now !== chain.id)
    throw new Error(
      `Your wallet is on chain ${now ?? "unknown"}, not on ${chainLabel(chain)}. Switch it there and try again; nothing was queued.`,
    );
}

/** The connected wallet, moved to the payout chain, signs the quoted terms (EIP-712, eth_signTypedData_v4). */
export async function signTerms(wallet: string, quote: WithdrawalQuote, chain: PayoutChainInfo): Promise<string> {
  const eth = getInjectedProvider();
  if (!eth) throw new Error("No wallet found in this browser: connect the wallet you signed in with to confirm.");
  const accounts = (await eth.request({ method: "eth_requestAccounts" })) as string[];
  if (!accounts.some((a) => a.toLowerCase() === wallet.toLowerCase()))
    throw new Error(`Switch your wallet to ${wallet}: only the wallet you signed in with can confirm a withdrawal.`);
  if (quote.chainId !== chain.id) throw new Error("This quote is for another chain than this page's; review the withdrawal again.");
  await switchToChain(eth, chain);
  try {
    return (await eth.request({ method: "eth_signTypedData_v4", params: [wallet, quote.typedData] })) as string;
  } catch (e) {
    if (codeOf(e) === 4001) throw new Error("You declined the signature in your wallet. Nothing was queued.");
    throw e;
  }
}

/**
 * Follows the wallet's active chain: calls `onChain` now and on every chainChanged event
 * (the user switching networks while the page is open). Returns the unsubscribe function.
 */
export function watchWalletChain(onChain: (chainId: number | null) => void): () => void {
  const eth = getInjectedProvider();
  if (!eth) return () => {};
  let live = true;
  const read = () => {
    walletChainId(eth)
      .then((c) => live && onChain(c))
      .catch(() => live && onChain(null));
  };
  const onChanged = (hex: unknown) => {
    const n = typeof hex === "string" ? Number.parseInt(hex, 16) : Number.NaN;
    if (live) onChain(Number.isFinite(n) ? n : null);
  };
  read();
  eth.on?.("chainChanged", onChanged);
  return () => {
    live = false;
    eth.removeListener?.("chainChanged", onChanged);
  };
}

/**
 * The connected wallet, moved to the payout chain, signs a standing payout instruction's typed
 * data (EIP-712, eth_signTypedData_v4), as it signs a withdrawal's terms.
 */
export async function signInstructionData(wallet: string, typedData: string, chain: PayoutChainInfo): Promise<string> {
  const eth = getInjectedProvider();
  if (!eth) throw new Error("No wallet found in this browser: connect the wallet you signed in with to sign.");
  const accounts = (await eth.request({ method: "eth_requestAccounts" })) as string[];
  if (!accounts.some((a) => a.toLowerCase() === wallet.toLowerCase()))
    throw new Error(`Switch your wallet to ${wallet}: only the owner's wallet can sign automatic payouts.`);
  await switchToChain(eth, chain);
  try {
    return (await eth.request({ method: "eth_signTypedData_v4", params: [wallet, typedData] })) as string;
  } catch (e) {
    if (codeOf(e) === 4001) throw new Error("You declined the signature in your wallet. Nothing changed.");
    throw e;
  }
}
