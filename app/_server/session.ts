import "server-only";
import { redirect } from "next/navigation";
import { connection } from "next/server";
import { getServerSession } from "next-auth";
import { cache } from "react";
import type { ActionResult } from "@/lib/dashboard/types";
import type { TeamRole } from "@/lib/teams/roles";
import { teamCan } from "@/lib/teams/roles";
import { getAuthOptions } from "./auth-options";
import { asResult, getDb, sessionMember, UNAUTHORIZED } from "./lib";

// The session side of the dashboard: Next glue (next-auth's cookie, React's per-request
// cache, redirects), so it lives here and not in lib/, which imports neither next nor react.

export interface SessionReseller {
  /** The team the session acts for. */
  resellerId: string;
  /** The signed-in member's wallet (lower-case). */
  wallet: string;
  markupBps: number;
  /** The member's role in the team, read from the database at this request (issue 54). */
  role: TeamRole;
  memberId: string;
  sessionId: string;
}

/**
 * The signed-in member of this request, re-read from the database: a valid cookie whose
 * session row has ended, whose reseller was revoked, or whose wallet is no longer a member of
 * the session's team counts as signed out; the role is the member's row's, never the cookie's.
 * Every dashboard page, route handler and server action starts here and scopes by
 * `resellerId`. Memoised per request while rendering (the layout and the page both ask).
 */
export const getSessionReseller = cache(async function getSessionReseller(): Promise<SessionReseller | null> {
  // Request time only: `next build` must never reach the session secret (lib/auth/secret.ts).
  await connection();
  const session = await getServerSession(getAuthOptions());
  if (!session?.sessionId) return null;
  const m = await sessionMember(getDb(), session);
  if (!m) return null;
  return {
    resellerId: m.reseller.id,
    wallet: m.member.walletAddress,
    markupBps: m.reseller.markupBps,
    role: m.member.role as TeamRole,
    memberId: m.member.id,
    sessionId: m.sessionId,
  };
});

/**
 * For pages: the member, or a redirect to the sign-in page. With `permission`, a role that may
 * not see the page gets `allowed: false` (the page shows that instead of its data).
 */
export async function requireSessionReseller(callbackPath?: string): Promise<SessionReseller> {
  const s = await getSessionReseller();
  if (!s) redirect(callbackPath ? `/signin?callbackUrl=${encodeURIComponent(callbackPath)}` : "/signin");
  return s;
}

/** For pages: the member, and whether their role may see the page (lib/teams/roles.ts). */
export async function requirePageMember(callbackPath: string, permission: string): Promise<SessionReseller & { allowed: boolean }> {
  const me = await requireSessionReseller(callbackPath);
  return { ...me, allowed: teamCan(me.role, permission) };
}

/** Runs a server action's `fn` for the signed-in member; without a current session, the unauthorised result. */
export async function forSessionReseller<T>(fn: (me: SessionReseller) => Promise<T>): Promise<ActionResult<T>> {
  const me = await getSessionReseller();
  if (!me) return UNAUTHORIZED;
  return asResult(() => fn(me));
}
