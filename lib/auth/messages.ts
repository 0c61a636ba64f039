// Sign-in failure codes and their text: shared by the server (siwe.ts) and the sign-in page.

export type SiweFailure =
  | "MALFORMED_MESSAGE"
  | "WRONG_DOMAIN"
  | "WRONG_URI"
  | "WRONG_CHAIN"
  | "MESSAGE_EXPIRED"
  | "MESSAGE_NOT_YET_VALID"
  | "BAD_SIGNATURE"
  | "NONCE_INVALID";

export const SIGN_IN_ERROR_TEXT: Record<string, string> = {
  MALFORMED_MESSAGE: "The sign-in message is not a valid Sign-In with Ethereum message.",
  WRONG_DOMAIN: "The sign-in message was made for another site.",
  WRONG_URI: "The sign-in message names another address than this site.",
  WRONG_CHAIN: "The wallet is on a network this site does not accept.",
  MESSAGE_EXPIRED: "The sign-in message has expired. Please sign in again.",
  MESSAGE_NOT_YET_VALID: "The sign-in message is not valid yet. Check your device's clock.",
  BAD_SIGNATURE: "The signature does not match the wallet address.",
  NONCE_INVALID: "This sign-in message was already used or has expired. Please sign in again.",
  SIGN_IN_FAILED: "Sign-in failed on the server. Please try again.",
  SessionRequired: "Please sign in to continue.",
};

export function signInErrorText(code: string | null | undefined): string | null {
  if (!code) return null;
  return SIGN_IN_ERROR_TEXT[code] ?? "Sign-in failed. Please try again.";
}
