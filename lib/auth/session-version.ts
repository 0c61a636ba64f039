import "server-only";
import crypto from "node:crypto";
import type { Db, Reseller } from "@/lib/db/client";
import { slot } from "@/lib/scope";

// Whether a session (the claims of a session cookie) is still accepted for a reseller. One
// rule for next-auth's jwt callback and for every dashboard page, action and download
// (app/_server/auth-options.ts and app/_server/session.ts call it). A session cookie is a JWT,
// which cannot be recalled; so each one names a DashboardSession row, made at sign-in, and
// every use checks that row: signing out ends it, and a copy of the cookie stops working at
// once (issue 48), not when the JWT expires.

/** How long a dashboard session lasts (its cookie's maxAge and its row's expiry). */
export const SESSION_MAX_AGE_SECONDS = 24 * 60 * 60;

interface SessionClaims {
  resellerId?: string;
  wallet?: string;
  sessionVersion?: number;
  /** The DashboardSession row the cookie was issued with. */
  sessionId?: string;
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

/**
 * The reseller a session belongs to, re-read from the database with the session's row; null
 * once the session has ended (signed out, expired, or ended with all the wallet's sessions). A
 * cookie that names no row (issued before sessions had rows) is no session: one sign-out for
 * everyone at the upgrade.
 */
export async function sessionReseller(db: Db, claims: SessionClaims, now = new Date()): Promise<Reseller | null> {
  if (!claims.resellerId || !claims.sessionId) return null;
  const session = await db.dashboardSession.findUnique({ where: { id: claims.sessionId }, include: { reseller: true } });
  if (!session || session.endedAt || session.expiresAt <= now || session.resellerId !== claims.resellerId) return null;
  return isSessionCurrent(session.reseller, claims) ? session.reseller : null;
}

/** When the current app last swept (at most once a minute). */
const lastSweep = slot(() => ({ at: 0 }));

/** A new session of a reseller (at sign-in); its id goes into the cookie. */
export async function startDashboardSession(db: Db, opts: { resellerId: string; now?: Date }): Promise<string> {
  const now = opts.now ?? new Date();
  const id = crypto.randomBytes(16).toString("hex");
  await db.dashboardSession.create({
    data: { id, resellerId: opts.resellerId, createdAt: now, expiresAt: new Date(now.getTime() + SESSION_MAX_AGE_SECONDS * 1000) },
  });
  // Expired rows are dead weight; swept at most once a minute per process.
  const swept = lastSweep();
  if (now.getTime() - swept.at > 60_000) {
    swept.at = now.getTime();
    await db.dashboardSession.deleteMany({ where: { expiresAt: { lt: now } } }).catch(() => {});
  }
  return id;
}

/** Ends one session (Sign out): its cookie, and every copy of it, is no session from now on. */
export async function endDashboardSession(db: Db, opts: { sessionId: string | undefined; now?: Date }): Promise<void> {
  if (!opts.sessionId) return;
  await db.dashboardSession.updateMany({ where: { id: opts.sessionId, endedAt: null }, data: { endedAt: opts.now ?? new Date() } });
}
