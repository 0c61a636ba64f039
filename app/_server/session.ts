import "server-only";
import { redirect } from "next/navigation";
import { getServerSession } from "next-auth";
import { cache } from "react";
import { getAuthOptions } from "./auth-options";
import { dashboardRead, getDb, getResellerById } from "./lib";

// The session side of the dashboard: Next glue (next-auth's cookie, React's per-request
// cache, redirects), so it lives here and not in lib/, which imports neither next nor react.

export interface SessionReseller {
  resellerId: string;
  wallet: string;
  markupBps: number;
}

/**
 * The signed-in reseller of this request, re-read from the database (a valid cookie for a
 * reseller that no longer exists, or whose wallet differs, counts as signed out). Every
 * dashboard page, route handler and server action starts here and scopes by `resellerId`.
 * Memoised per request while rendering (the layout and the page both ask).
 */
export const getSessionReseller = cache(async function getSessionReseller(): Promise<SessionReseller | null> {
  const session = await getServerSession(getAuthOptions());
  if (!session?.resellerId) return null;
  const reseller = await getResellerById(getDb(), { resellerId: session.resellerId });
  if (!reseller || reseller.walletAddress !== session.wallet.toLowerCase()) return null;
  return { resellerId: reseller.id, wallet: reseller.walletAddress, markupBps: reseller.markupBps };
});

/** For pages: the reseller, or a redirect to the sign-in page. */
export async function requireSessionReseller(callbackPath?: string): Promise<SessionReseller> {
  const s = await getSessionReseller();
  if (!s) redirect(callbackPath ? `/signin?callbackUrl=${encodeURIComponent(callbackPath)}` : "/signin");
  return s;
}

/** A dashboard read endpoint for the signed-in reseller (401 without a session, 404 for null). */
export async function dashboardGet(read: (me: SessionReseller) => Promise<unknown>): Promise<Response> {
  return dashboardRead(await getSessionReseller(), read);
}
