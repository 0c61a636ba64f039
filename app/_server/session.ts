import "server-only";
import { redirect } from "next/navigation";
import { connection } from "next/server";
import { getServerSession } from "next-auth";
import { cache } from "react";
import type { ActionResult } from "@/lib/dashboard/types";
import { getAuthOptions } from "./auth-options";
import { asResult, getDb, sessionReseller, UNAUTHORIZED } from "./lib";

// The session side of the dashboard: Next glue (next-auth's cookie, React's per-request
// cache, redirects), so it lives here and not in lib/, which imports neither next nor react.

export interface SessionReseller {
  resellerId: string;
  wallet: string;
  markupBps: number;
}

/**
 * The signed-in reseller of this request, re-read from the database: a valid cookie for a
 * reseller that no longer exists, whose wallet differs, that was revoked, or whose sessions
 * were ended since ("Sign out everywhere") counts as signed out. Every dashboard page, route
 * handler and server action starts here and scopes by `resellerId`. Memoised per request
 * while rendering (the layout and the page both ask).
 */
export const getSessionReseller = cache(async function getSessionReseller(): Promise<SessionReseller | null> {
  // Request time only: `next build` must never reach the session secret (lib/auth/secret.ts).
  await connection();
  const session = await getServerSession(getAuthOptions());
  if (!session?.resellerId) return null;
  const reseller = await sessionReseller(getDb(), session);
  if (!reseller) return null;
  return { resellerId: reseller.id, wallet: reseller.walletAddress, markupBps: reseller.markupBps };
});

/** For pages: the reseller, or a redirect to the sign-in page. */
export async function requireSessionReseller(callbackPath?: string): Promise<SessionReseller> {
  const s = await getSessionReseller();
  if (!s) redirect(callbackPath ? `/signin?callbackUrl=${encodeURIComponent(callbackPath)}` : "/signin");
  return s;
}

/** Runs a server action's `fn` for the signed-in reseller; without a current session, the unauthorised result. */
export async function forSessionReseller<T>(fn: (me: SessionReseller) => Promise<T>): Promise<ActionResult<T>> {
  const me = await getSessionReseller();
  if (!me) return UNAUTHORIZED;
  return asResult(() => fn(me));
}
