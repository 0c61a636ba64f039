import "server-only";
import type { Db, Reseller } from "@/lib/db/client";
import { getResellerById } from "@/lib/resellers/resellers";

// Whether a session (the claims of a session cookie) is still accepted for a reseller. One
// rule for next-auth's jwt callback and for every dashboard page, action and download
// (app/_server/auth-options.ts and app/_server/session.ts call it).

interface SessionClaims {
  resellerId?: string;
  wallet?: string;
  sessionVersion?: number;
}

interface ResellerStanding {
  walletAddress: string;
  sessionVersion: number;
  revokedAt: Date | null;
}

/** Thrown in next-auth's jwt callback: next-auth then answers "no session" and clears the cookie. */
export class SessionEndedError extends Error {
  constructor() {
    super("the session has ended");
    this.name = "SessionEndedError";
  }
}

/**
 * A session is current while its reseller exists with the same wallet, is not revoked, and
 * has the session version the session was issued under ("Sign out everywhere" and revocation
 * raise it). Cookies from before session versions existed count as version 0.
 */
export function isSessionCurrent(reseller: ResellerStanding | null, claims: SessionClaims): boolean {
  if (!reseller || reseller.revokedAt) return false;
  if (!claims.wallet || reseller.walletAddress !== claims.wallet.toLowerCase()) return false;
  return reseller.sessionVersion === (claims.sessionVersion ?? 0);
}

/** The reseller a session belongs to, re-read from the database; null once the session has ended. */
export async function sessionReseller(db: Db, claims: SessionClaims): Promise<Reseller | null> {
  if (!claims.resellerId) return null;
  const reseller = await getResellerById(db, { resellerId: claims.resellerId });
  return reseller && isSessionCurrent(reseller, claims) ? reseller : null;
}
