// Sign-in failure codes and their text: shared by the server (siwe.ts) and the sign-in page.

export type SiweFailure =
  | "MALFORMED_MESSAGE"
  | "WRONG_DOMAIN"
  | "WRONG_URI"
  | "WRONG_CHAIN"
  | "MESSAGE_EXPIRED"
  | "MESSAGE_NOT_YET_VALID"
  | "BAD_SIGNATURE"
  | "CONTRACT_WALLET_UNCHECKED"
  | "NONCE_INVALID";

export const SIGN_IN_ERROR_TEXT: Record<string, string> = {
  MALFORMED_MESSAGE: "The sign-in message is not a valid Sign-In with Ethereum message.",
  WRONG_DOMAIN: "The sign-in message was made for another site.",
  WRONG_URI: "The sign-in message names another address than this site.",
  WRONG_CHAIN: "The wallet is on a network this site does not accept.",
  MESSAGE_EXPIRED: "The sign-in message has expired. Please sign in again.",
  MESSAGE_NOT_YET_VALID: "The sign-in message is not valid yet. Check your device's clock.",
  BAD_SIGNATURE: "The signature does not match the wallet address.",
  CONTRACT_WALLET_UNCHECKED:
    "Your wallet is a smart-contract wallet, and the server could not reach its network to check the signature. Please try again later.",
  NONCE_INVALID: "This sign-in message was already used or has expired. Please sign in again.",
  ACCOUNT_DISABLED: "This wallet's reseller account has been disabled by the operator.",
  SIGN_IN_FAILED: "Sign-in failed on the server. Please try again.",
  NOT_A_MEMBER: "This wallet is no longer a member of its reseller's team. Ask an owner of a team for an invitation.",
  INVITE_USED: "This invitation link has already been used. Ask the team's owner for a new one.",
  INVITE_EXPIRED: "This invitation link has expired. Ask the team's owner for a new one.",
  INVITE_REVOKED: "This invitation was revoked by the team's owner.",
  INVITE_NOT_FOUND: "This invitation link is not valid.",
  ALREADY_MEMBER: "This wallet is already a member of that team: sign in without the invitation.",
  SessionRequired: "Please sign in to continue.",
};

/** Added to BAD_SIGNATURE when the server has no RPC node for the chain the wallet signed on. */
const CONTRACT_WALLET_HINT =
  " If this is a smart-contract wallet (such as a Safe): this server can only check those on networks it has an RPC node for (SIWE_RPC_URL), and it has none for this one.";

/**
 * The text for a sign-in failure code. `contractWallets`: whether the server could have
 * checked a smart-contract wallet's signature on the chain in question (false: say so).
 */
export function signInErrorText(code: string | null | undefined, opts: { contractWallets?: boolean } = {}): string | null {
  if (!code) return null;
  const text = SIGN_IN_ERROR_TEXT[code] ?? "Sign-in failed. Please try again.";
  return code === "BAD_SIGNATURE" && opts.contractWallets === false ? text + CONTRACT_WALLET_HINT : text;
}
