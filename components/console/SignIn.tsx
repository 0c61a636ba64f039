"use client";

import { useEffect, useState } from "react";
import { getAddress, toHex } from "viem";
import { createSiweMessage } from "viem/siwe";
import { getInjectedProvider, isUserRejection } from "@/components/auth/eip1193";
import { ConsoleError, consolePost } from "./api";
import { Btn, ErrorLine } from "./ui";

// The operator's sign-in: the browser wallet (an injected EIP-1193 provider, as the reseller's
// sign-in uses) signs an EIP-4361 message naming this origin and a nonce from the console's
// API; POST /api/console/auth/sign-in checks it and sets the console's own session cookie.

export const CONSOLE_STATEMENT = "Sign in to the operator's console. This request costs nothing and sends no transaction.";

interface Nonce {
  nonce: string;
  domain: string;
  uri: string;
  chainIds: number[];
}

export function ConsoleSignIn({ next }: { next: string }) {
  const [step, setStep] = useState("");
  const [error, setError] = useState<Error | null>(null);
  const [hasWallet, setHasWallet] = useState<boolean | null>(null);

  useEffect(() => setHasWallet(getInjectedProvider() !== null), []);

  async function go() {
    const eth = getInjectedProvider();
    if (!eth) {
      setHasWallet(false);
      return;
    }
    setError(null);
    try {
      setStep("Connecting to your wallet…");
      const accounts = (await eth.request({ method: "eth_requestAccounts" })) as string[];
      if (!accounts?.length) throw new Error("The wallet shared no account.");
      const address = getAddress(accounts[0]);
      const server = await consolePost<Nonce>("/auth/nonce");
      if (server.domain !== window.location.host)
        throw new Error(`This console is configured for ${server.uri}. Open it at that address to sign in.`);
      let chainId = Number.parseInt((await eth.request({ method: "eth_chainId" })) as string, 16);
      if (!server.chainIds.includes(chainId)) {
        try {
          await eth.request({ method: "wallet_switchEthereumChain", params: [{ chainId: toHex(server.chainIds[0]) }] });
          chainId = server.chainIds[0];
        } catch {
          throw new Error(`Switch your wallet to chain ${server.chainIds[0]} and try again.`);
        }
      }
      const issuedAt = new Date();
      const message = createSiweMessage({
        domain: window.location.host,
        address,
        statement: CONSOLE_STATEMENT,
        uri: window.location.origin,
        version: "1",
        chainId,
        nonce: server.nonce,
        issuedAt,
        expirationTime: new Date(issuedAt.getTime() + 10 * 60_000),
      });
      setStep("Approve the sign-in message in your wallet…");
      const signature = (await eth.request({ method: "personal_sign", params: [toHex(message), address] })) as string;
      setStep("Checking the signature…");
      await consolePost("/auth/sign-in", { message, signature });
      setStep("Signed in. Opening the console…");
      // A full load: the console starts with nothing cached from before.
      window.location.assign(next);
    } catch (e) {
      setStep("");
      setError(
        isUserRejection(e)
          ? new Error("You cancelled the request in your wallet.")
          : e instanceof ConsoleError || e instanceof Error
            ? e
            : new Error("Sign-in failed."),
      );
    }
  }

  return (
    <div className="space-y-2">
      <ErrorLine error={error} />
      {hasWallet === false ? (
        <p role="alert" className="border border-amber-200 bg-amber-50 px-2 py-1 text-amber-900">
          No browser wallet found. Enable an Ethereum wallet extension in this browser, then reload the page.
        </p>
      ) : null}
      <Btn onClick={go} disabled={step !== "" || hasWallet === false} className="w-full py-2 text-sm">
        {step ? "Signing in…" : "Sign in with wallet"}
      </Btn>
      <p aria-live="polite" className="min-h-4 text-xs text-zinc-500">
        {step}
      </p>
    </div>
  );
}
