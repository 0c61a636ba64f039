import "server-only";
import { getAddress, isHex, verifyMessage } from "viem";
import { createSiweMessage, parseSiweMessage } from "viem/siwe";
import type { Db } from "@/lib/db/client";
import type { SiweFailure } from "./messages";
import { consumeNonce } from "./nonce";
import { getAllowedChainIds, getAppOrigin } from "./origin";

// Server-side verification of a Sign-In with Ethereum (EIP-4361) message. Every field that
// binds the message to this service is compared with the server's own configuration
// (origin, chain ids, issued nonces), never with another part of the message.

export type { SiweFailure } from "./messages";

export class SiweError extends Error {
  constructor(readonly code: SiweFailure) {
    super(code);
    this.name = "SiweError";
  }
}

/** Tolerated clock difference between the wallet's device and the server. */
const CLOCK_SKEW_MS = 5 * 60_000;
/** A message older than this is refused even if it declares a later expiry. */
const MAX_MESSAGE_AGE_MS = 15 * 60_000;

export interface VerifiedSignIn {
  walletAddress: `0x${string}`;
  chainId: number;
}

export async function verifySiweSignIn(db: Db, input: { message: unknown; signature: unknown }, now = new Date()): Promise<VerifiedSignIn> {
  const { message, signature } = input;
  if (typeof message !== "string" || message.length > 4096) throw new SiweError("MALFORMED_MESSAGE");
  if (typeof signature !== "string" || !isHex(signature) || signature.length > 2 + 2 * 1024) throw new SiweError("BAD_SIGNATURE");

  const m = parseSiweMessage(message);
  if (!m.address || !m.domain || !m.uri || m.version !== "1" || !m.chainId || !m.nonce || !m.issuedAt)
    throw new SiweError("MALFORMED_MESSAGE");
  // The parser's patterns are not anchored at the end: re-create the canonical text from the
  // parsed fields and require the exact bytes, so nothing was appended or smuggled in.
  let canonical: string;
  try {
    canonical = createSiweMessage({ ...m, address: getAddress(m.address) } as Parameters<typeof createSiweMessage>[0]);
  } catch {
    throw new SiweError("MALFORMED_MESSAGE");
  }
  if (canonical !== message) throw new SiweError("MALFORMED_MESSAGE");

  const origin = getAppOrigin();
  if (m.domain !== origin.host) throw new SiweError("WRONG_DOMAIN");
  if (m.scheme !== undefined && `${m.scheme}:` !== origin.protocol) throw new SiweError("WRONG_DOMAIN");
  let uri: URL;
  try {
    uri = new URL(m.uri);
  } catch {
    throw new SiweError("WRONG_URI");
  }
  if (uri.origin !== origin.origin) throw new SiweError("WRONG_URI");
  if (!getAllowedChainIds().includes(m.chainId)) throw new SiweError("WRONG_CHAIN");

  const t = now.getTime();
  const issued = m.issuedAt.getTime();
  if (Number.isNaN(issued)) throw new SiweError("MALFORMED_MESSAGE");
  if (issued > t + CLOCK_SKEW_MS) throw new SiweError("MESSAGE_NOT_YET_VALID");
  if (issued < t - MAX_MESSAGE_AGE_MS) throw new SiweError("MESSAGE_EXPIRED");
  if (m.expirationTime && (Number.isNaN(m.expirationTime.getTime()) || m.expirationTime.getTime() <= t))
    throw new SiweError("MESSAGE_EXPIRED");
  if (m.notBefore && (Number.isNaN(m.notBefore.getTime()) || m.notBefore.getTime() > t + CLOCK_SKEW_MS))
    throw new SiweError("MESSAGE_NOT_YET_VALID");

  // An ordinary (EOA) wallet's signature, checked locally: no RPC. Contract wallets
  // (EIP-1271) would need a chain connection and are not supported.
  let valid = false;
  try {
    valid = await verifyMessage({ address: m.address, message, signature });
  } catch {
    valid = false;
  }
  if (!valid) throw new SiweError("BAD_SIGNATURE");

  // Last, after everything else passed: burn the nonce. Unknown, expired or already used
  // nonces fail here, so a replayed message (same nonce) is refused.
  if (!(await consumeNonce(db, m.nonce, now))) throw new SiweError("NONCE_INVALID");

  return { walletAddress: getAddress(m.address), chainId: m.chainId };
}
