"use client";

import { getInjectedProvider } from "@/components/auth/eip1193";

// A money-moving action needs a fresh EIP-712 signature from the operator's own wallet (issue
// 52): the wallet is moved to the typed data's chain (a wallet refuses typed data of another
// chain), then signs it with eth_signTypedData_v4.

/**
 * Signs `typedData` (the eth_signTypedData_v4 argument: the server's JSON text, sent to the
 * wallet as it is, so the wallet signs exactly the terms the server will check).
 */
export async function signTypedData(wallet: string, typedData: string): Promise<string> {
  const eth = getInjectedProvider();
  if (!eth) throw new Error("No wallet found in this browser: connect the wallet you signed in with.");
  const accounts = (await eth.request({ method: "eth_requestAccounts" })) as string[];
  if (!accounts.some((a) => a.toLowerCase() === wallet.toLowerCase()))
    throw new Error(`Switch your wallet to ${wallet}: only the wallet you signed in with can approve.`);
  const domainChain = (JSON.parse(typedData) as { domain?: { chainId?: number | string } }).domain?.chainId;
  const chainId = domainChain === undefined ? Number.NaN : Number(domainChain);
  if (Number.isFinite(chainId)) {
    const now = Number.parseInt(String(await eth.request({ method: "eth_chainId" })), 16);
    if (now !== chainId) {
      try {
        await eth.request({ method: "wallet_switchEthereumChain", params: [{ chainId: `0x${chainId.toString(16)}` }] });
      } catch (e) {
        throw new Error(`Switch your wallet to chain ${chainId} to sign: ${(e as Error)?.message ?? String(e)}`);
      }
    }
  }
  return (await eth.request({ method: "eth_signTypedData_v4", params: [wallet, typedData] })) as string;
}
