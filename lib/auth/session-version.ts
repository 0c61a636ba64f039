import "server-only";
import crypto from "node:crypto";
import type { Db, Reseller, ResellerMember } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
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

/** Thrown in next-auth's jwt callback: next-auth then answers "no session" and clears the cookie. */
export class SessionEndedError extends Error {
  constructor() {
    super("the session has ended");
    this.name = "SessionEndedError";
  }
}

/** The signed-in member of this request: their team's reseller and their role in it, as the database says now. */
export interface SessionMember {
  reseller: Reseller;
  member: ResellerMember;
  sessionId: string;
}

/**
 * The member a session belongs to, re-read from the database with the session's row on every
 * request; null once the session has ended (signed out, expired, ended with all the wallet's
 * sessions, its reseller revoked) or once the wallet is no longer a member of the row's team
 * (removed, left). The row names the team (resellerId: the one signed in to, or switched to) and
 * the wallet; the member's role comes from its ResellerMember row, never from the cookie, so a
 * change of role takes effect at the next request. A cookie that names no row is no session.
 * "Sign out everywhere" and revocation raise the reseller's session version in the same
 * transaction that ends its rows, so the row alone decides.
 */
export async function sessionMember(db: Db, claims: SessionClaims, now = new Date()): Promise<SessionMember | null> {
  if (!claims.sessionId || !claims.wallet) return null;
  const session = await db.dashboardSession.findUnique({ where: { id: claims.sessionId }, include: { reseller: true } });
  if (!session || session.endedAt || session.expiresAt <= now || session.reseller.revokedAt) return null;
  const wallet = claims.wallet.toLowerCase();
  if ((session.walletAddress ?? session.reseller.walletAddress) !== wallet) return null;
  const member = await db.resellerMember.findUnique({
    where: { resellerId_walletAddress: { resellerId: session.resellerId, walletAddress: wallet } },
  });
  return member ? { reseller: session.reseller, member, sessionId: session.id } : null;
}

/** The reseller a session acts for (sessionMember's), or null once it has ended. */
export async function sessionReseller(db: Db, claims: SessionClaims, now = new Date()): Promise<Reseller | null> {
  return (await sessionMember(db, claims, now))?.reseller ?? null;
}

/** When the current app last swept (at most once a minute). */
const lastSweep = slot(() => ({ at: 0 }));

/** A new session of a member of a reseller's team (at sign-in); its id goes into the cookie. */
export async function startDashboardSession(db: Db, opts: { resellerId: string; walletAddress: string; now?: Date }): Promise<string> {
  const now = opts.now ?? new Date();
  const id = crypto.randomBytes(16).toString("hex");
  await db.dashboardSession.create({
    data: {
      id,
      resellerId: opts.resellerId,
      walletAddress: opts.walletAddress.toLowerCase(),
      createdAt: now,
      expiresAt: new Date(now.getTime() + SESSION_MAX_AGE_SECONDS * 1000),
    },
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

/** "Sign out everywhere" for one member: every session of this wallet, in every team, on every device, ends now. */
export async function endWalletSessions(db: Db, opts: { walletAddress: string; now?: Date }): Promise<void> {
  await db.dashboardSession.updateMany({
    where: { walletAddress: opts.walletAddress.toLowerCase(), endedAt: null },
    data: { endedAt: opts.now ?? new Date() },
  });
}

/**
 * Points a session at another team of its wallet (the "switch team" selector): the row is the
 * session's team, so the same cookie acts for the new team from the next request. NOT_FOUND
 * when the wallet is not a member of that team, or the session has ended.
 */
export async function switchSessionTeam(db: Db, opts: { sessionId: string; walletAddress: string; resellerId: string }): Promise<void> {
  const wallet = opts.walletAddress.toLowerCase();
  const member = await db.resellerMember.findUnique({
    where: { resellerId_walletAddress: { resellerId: opts.resellerId, walletAddress: wallet } },
    include: { reseller: true },
  });
  if (!member || member.reseller.revokedAt) throw new AppError("NOT_FOUND", "You are not a member of that team.");
  const r = await db.dashboardSession.updateMany({
    where: { id: opts.sessionId, walletAddress: wallet, endedAt: null },
    data: { resellerId: opts.resellerId },
  });
  if (r.count !== 1) throw new AppError("UNAUTHORIZED", "Your session has ended. Please sign in again.");
}
