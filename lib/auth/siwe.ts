import "server-only";
import { SiweErrorType, SiweMessage, SiweError as SiwePackageError, type SiweResponse } from "siwe";
import { getAddress, isHex } from "viem";
import type { Db } from "@/lib/db/client";
import { getLogger } from "@/lib/log";
import { canCheckContractWallets, isValidContractWalletSignature, RpcUnavailableError } from "./contract-wallet";
import type { SiweFailure } from "./messages";
import { consumeNonce } from "./nonce";
import { getAllowedChainIds, getAppOrigin } from "./origin";

// Server-side verification of a Sign-In with Ethereum (EIP-4361) message with the `siwe`
// package: its ABNF grammar parses the message (EIP-55 address, RFC 3986 URI, ISO 8601
// times), and its verify() checks domain, scheme, expiry and the signature (an ordinary
// wallet's by ECDSA recovery; a smart-contract wallet's through our EIP-1271 fallback).
// Every field that binds the message to this service is compared with the server's own
// configuration (origin, chain ids, issued nonces), never with another part of the message.
// siwe pulls in ethers: this module is server-only (the sign-in page builds its message
// with viem, already in its bundle).

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
const MAX_MESSAGE_CHARS = 4096;
/** 65 bytes r,s,v or 64 bytes EIP-2098 compact: the only shapes an ordinary wallet signs. */
const ECDSA_SIGNATURE_RE = /^0x(?:[0-9a-fA-F]{128}|[0-9a-fA-F]{130})$/;
/** Contract wallets may sign with longer payloads (several owners, ERC-6492 wrapping). */
const MAX_SIGNATURE_BYTES = 8 * 1024;

export interface VerifiedSignIn {
  walletAddress: `0x${string}`;
  chainId: number;
  /** True when the signature was accepted by the wallet contract (EIP-1271), not by ECDSA recovery. */
  contractWallet: boolean;
}

const SIWE_FAILURES: Partial<Record<string, SiweFailure>> = {
  [SiweErrorType.SCHEME_MISMATCH]: "WRONG_DOMAIN",
  [SiweErrorType.DOMAIN_MISMATCH]: "WRONG_DOMAIN",
  [SiweErrorType.EXPIRED_MESSAGE]: "MESSAGE_EXPIRED",
  [SiweErrorType.NOT_YET_VALID_MESSAGE]: "MESSAGE_NOT_YET_VALID",
  [SiweErrorType.INVALID_SIGNATURE]: "BAD_SIGNATURE",
};
const RPC_UNAVAILABLE = "RPC_UNAVAILABLE";

function parse(message: string): SiweMessage {
  let m: SiweMessage;
  try {
    m = new SiweMessage(message);
  } catch {
    throw new SiweError("MALFORMED_MESSAGE");
  }
  // The exact bytes of the canonical form, so that what the wallet showed is what was checked
  // (no alternative spellings of the same fields, nothing appended). prepareMessage() fills
  // absent fields, so it runs on a copy.
  let canonical: string;
  try {
    canonical = new SiweMessage({ ...m }).prepareMessage();
  } catch {
    throw new SiweError("MALFORMED_MESSAGE");
  }
  if (canonical !== message || !m.issuedAt) throw new SiweError("MALFORMED_MESSAGE");
  return m;
}

function checkTimes(m: SiweMessage, t: number) {
  const issued = Date.parse(m.issuedAt ?? "");
  if (Number.isNaN(issued)) throw new SiweError("MALFORMED_MESSAGE");
  if (issued > t + CLOCK_SKEW_MS) throw new SiweError("MESSAGE_NOT_YET_VALID");
  if (issued < t - MAX_MESSAGE_AGE_MS) throw new SiweError("MESSAGE_EXPIRED");
  if (m.expirationTime !== undefined && !(Date.parse(m.expirationTime) > t)) throw new SiweError("MESSAGE_EXPIRED");
  if (m.notBefore !== undefined && !(Date.parse(m.notBefore) <= t)) throw new SiweError("MESSAGE_NOT_YET_VALID");
}

export async function verifySiweSignIn(db: Db, input: { message: unknown; signature: unknown }, now = new Date()): Promise<VerifiedSignIn> {
  const { message, signature } = input;
  if (typeof message !== "string" || message.length > MAX_MESSAGE_CHARS) throw new SiweError("MALFORMED_MESSAGE");
  if (typeof signature !== "string" || !isHex(signature) || signature.length > 2 + 2 * MAX_SIGNATURE_BYTES)
    throw new SiweError("BAD_SIGNATURE");
  const m = parse(message);

  // The bindings siwe cannot know or does not check: the URI and chain against this server's
  // configuration, and the message's age. Domain, scheme and times are checked here first too
  // (siwe re-checks them below): its verify() keeps running after a failed check, and would
  // still ask the chain about a contract wallet's signature for a message bound elsewhere.
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
  checkTimes(m, now.getTime());

  const contractWallets = canCheckContractWallets(m.chainId);
  // Without a node only ECDSA can succeed; refusing other shapes here also keeps siwe from
  // logging ethers' parse error for every garbage signature.
  if (!contractWallets && !ECDSA_SIGNATURE_RE.test(signature)) throw new SiweError("BAD_SIGNATURE");

  let contractWallet = false;
  const result: SiweResponse = await m.verify(
    { signature, domain: origin.host, scheme: m.scheme === undefined ? undefined : origin.protocol.slice(0, -1), time: now.toISOString() },
    {
      suppressExceptions: true,
      // Runs only when ECDSA recovery did not give the message's address.
      verificationFallback: contractWallets
        ? async (_params, _opts, msg) => {
            try {
              const address = getAddress(msg.address);
              const ok = await isValidContractWalletSignature({ chainId: msg.chainId, address, message, signature });
              contractWallet = ok;
              return ok
                ? { success: true, data: msg }
                : { success: false, data: msg, error: new SiwePackageError(SiweErrorType.INVALID_SIGNATURE) };
            } catch (e) {
              if (!(e instanceof RpcUnavailableError)) throw e;
              // Not the error itself: viem's messages carry the node's URL, which may hold an API key.
              const cause = e.cause as { name?: string; shortMessage?: string; message?: string } | undefined;
              getLogger().error(
                {
                  chainId: msg.chainId,
                  error: cause?.name,
                  reason: cause?.shortMessage ?? (cause?.name === "Error" ? cause.message : undefined),
                },
                "sign-in: the contract wallet's signature could not be checked",
              );
              return { success: false, data: msg, error: new SiwePackageError(RPC_UNAVAILABLE) };
            }
          }
        : undefined,
    },
  );
  if (!result.success) {
    const type = result.error?.type;
    if (type === RPC_UNAVAILABLE) throw new SiweError("CONTRACT_WALLET_UNCHECKED");
    throw new SiweError((type && SIWE_FAILURES[type]) || "BAD_SIGNATURE");
  }

  // Last, after everything else passed: burn the nonce. Unknown, expired or already used
  // nonces fail here, so a replayed message (same nonce) is refused.
  if (!(await consumeNonce(db, m.nonce, now))) throw new SiweError("NONCE_INVALID");

  return { walletAddress: getAddress(m.address), chainId: m.chainId, contractWallet };
}
