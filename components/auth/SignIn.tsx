"use client";

import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { useEffect, useState } from "react";
import { getAddress, toHex } from "viem";
import { createSiweMessage } from "viem/siwe";
import { Alert, Button } from "@/components/ui";
import { safeCallbackPath } from "@/lib/auth/callback";
import { signInErrorText } from "@/lib/auth/messages";
import { getInjectedProvider, isUserRejection } from "./eip1193";

type Step = "idle" | "connecting" | "signing" | "verifying" | "done";

const STEP_TEXT: Record<Step, string> = {
  idle: "",
  connecting: "Connecting to your wallet…",
  signing: "Approve the sign-in message in your wallet…",
  verifying: "Checking the signature…",
  done: "Signed in. Opening your dashboard…",
};

interface NonceResponse {
  nonce: string;
  domain: string;
  uri: string;
  chainIds: number[];
  /** Chains on which the server can check a smart-contract wallet's signature. */
  contractWalletChainIds: number[];
}

export function SignIn({
  initialError,
  callbackUrl,
  contractWallets,
  invite,
}: {
  initialError: string | null;
  /** An invitation link's secret (the join page): signing in joins that team. */
  invite?: string;
  callbackUrl: string | null;
  /** Whether the server can check smart-contract wallets on every chain it accepts. */
  contractWallets: boolean;
}) {
  const router = useRouter();
  const [step, setStep] = useState<Step>("idle");
  const [error, setError] = useState<string | null>(signInErrorText(initialError, { contractWallets }));
  const [hasWallet, setHasWallet] = useState<boolean | null>(null);

  useEffect(() => {
    // Wallet extensions inject window.ethereum at document start; check after mount.
    setHasWallet(getInjectedProvider() !== null);
  }, []);

  async function connectAndSignIn() {
    const eth = getInjectedProvider();
    if (!eth) {
      setHasWallet(false);
      return;
    }
    setError(null);
    try {
      setStep("connecting");
      const accounts = (await eth.request({ method: "eth_requestAccounts" })) as string[];
      if (!accounts?.length) throw new Error("The wallet shared no account.");
      const address = getAddress(accounts[0]);

      const res = await fetch("/api/auth/nonce", { method: "POST" });
      if (!res.ok) throw new Error("The server could not start a sign-in. Please try again.");
      const server = (await res.json()) as NonceResponse;
      if (server.domain !== window.location.host) {
        throw new Error(`This dashboard is configured for ${server.uri}. Open it at that address to sign in.`);
      }

      let chainId = Number.parseInt((await eth.request({ method: "eth_chainId" })) as string, 16);
      if (!server.chainIds.includes(chainId)) {
        try {
          await eth.request({ method: "wallet_switchEthereumChain", params: [{ chainId: toHex(server.chainIds[0]) }] });
          chainId = server.chainIds[0];
        } catch {
          throw new Error(
            `Switch your wallet to ${server.chainIds[0] === 1 ? "Ethereum mainnet" : `chain ${server.chainIds[0]}`} and try again.`,
          );
        }
      }

      const issuedAt = new Date();
      const message = createSiweMessage({
        domain: window.location.host,
        address,
        statement: "Sign in to the reseller dashboard. This request costs nothing and sends no transaction.",
        uri: window.location.origin,
        version: "1",
        chainId,
        nonce: server.nonce,
        issuedAt,
        expirationTime: new Date(issuedAt.getTime() + 10 * 60_000),
      });

      setStep("signing");
      const signature = (await eth.request({ method: "personal_sign", params: [toHex(message), address] })) as string;

      setStep("verifying");
      const result = await signIn("siwe", { message, signature, ...(invite ? { invite } : {}), redirect: false });
      if (!result || result.error || !result.ok) {
        setStep("idle");
        setError(signInErrorText(result?.error ?? "SIGN_IN_FAILED", { contractWallets: server.contractWalletChainIds.includes(chainId) }));
        return;
      }
      setStep("done");
      // Only a path of this app, decided on the parsed URL (lib/auth/callback.ts): no open redirect.
      router.replace(safeCallbackPath(callbackUrl, window.location.origin));
      router.refresh();
    } catch (e) {
      setStep("idle");
      setError(isUserRejection(e) ? "You cancelled the request in your wallet." : e instanceof Error ? e.message : "Sign-in failed.");
    }
  }

  const busy = step !== "idle";
  return (
    <div className="space-y-4">
      {error ? <Alert>{error}</Alert> : null}
      {hasWallet === false ? (
        <Alert tone="warning" title="No browser wallet found">
          Install or enable an Ethereum wallet extension (for example MetaMask, Rabby or Coinbase Wallet) in this browser, then reload the
          page.
        </Alert>
      ) : null}
      <Button onClick={connectAndSignIn} disabled={busy || hasWallet === false} className="w-full py-2.5 text-base">
        {busy ? "Signing in…" : invite ? "Join with your wallet" : "Connect wallet"}
      </Button>
      <p aria-live="polite" className="min-h-5 text-center text-sm text-zinc-500">
        {STEP_TEXT[step]}
      </p>
    </div>
  );
}
