import "server-only";
import { getConfig } from "@/lib/config";

// The one origin the dashboard answers for. SIWE messages are checked against this value,
// never against what the message itself claims, and never against a request's Host header
// (which a client controls).

/** APP_URL when set, else http://localhost:PORT (the zero-configuration laptop case). */
export function getAppOrigin(): URL {
  const c = getConfig();
  return new URL(new URL(c.APP_URL ?? `http://localhost:${c.PORT}`).origin);
}

/**
 * Chain ids a SIWE message may name. SIWE_CHAIN_IDS is a comma list ("1,8453"); default 1
 * (Ethereum mainnet). Signing is off-chain, so this only binds the session to a chain.
 */
export function getAllowedChainIds(): number[] {
  const raw = getConfig().SIWE_CHAIN_IDS;
  const ids = raw.split(",").map((s) => Number(s.trim()));
  if (ids.some((n) => !Number.isSafeInteger(n) || n <= 0)) throw new Error(`invalid SIWE_CHAIN_IDS: ${raw}`);
  return ids;
}

/**
 * The JSON-RPC node of each chain that has one (SIWE_RPC_URL "1=https://...,8453=https://...",
 * validated in lib/config.ts). Only needed for smart-contract wallets: an ordinary wallet's
 * signature is checked without any node. The URLs may embed a provider's key: never log them.
 */
export function getRpcUrls(): Map<number, string> {
  const raw = getConfig().SIWE_RPC_URL?.trim();
  const urls = new Map<number, string>();
  if (!raw) return urls;
  for (const item of raw.split(",")) {
    const at = item.indexOf("=");
    urls.set(Number(item.slice(0, at).trim()), item.slice(at + 1).trim());
  }
  return urls;
}

/** Allowed chains on which a smart-contract wallet can sign in (those with an RPC node). */
export function getContractWalletChainIds(): number[] {
  const rpc = getRpcUrls();
  return getAllowedChainIds().filter((id) => rpc.has(id));
}

/**
 * next-auth 4 builds its callback URLs and chooses secure cookies from NEXTAUTH_URL; without
 * it, it assumes http://localhost:3000. Point it at the configured origin unless the operator
 * set it explicitly.
 */
export function ensureNextAuthUrl(): void {
  if (!process.env.NEXTAUTH_URL) process.env.NEXTAUTH_URL = getAppOrigin().origin;
}
