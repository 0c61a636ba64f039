import { redirect } from "next/navigation";
import { getServerSession } from "next-auth";
import { cache } from "react";
import { getDb } from "@/lib/db/client";
import { getResellerById } from "@/lib/resellers/resellers";
import { getAuthOptions } from "./options";
import { isSessionCurrent } from "./session-version";

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
  const session = await getServerSession(getAuthOptions());
  if (!session?.resellerId) return null;
  const reseller = await getResellerById(getDb(), { resellerId: session.resellerId });
  if (!reseller || !isSessionCurrent(reseller, session)) return null;
  return { resellerId: reseller.id, wallet: reseller.walletAddress, markupBps: reseller.markupBps };
});

/** For pages: the reseller, or a redirect to the sign-in page. */
export async function requireSessionReseller(callbackPath?: string): Promise<SessionReseller> {
  const s = await getSessionReseller();
  if (!s) redirect(callbackPath ? `/signin?callbackUrl=${encodeURIComponent(callbackPath)}` : "/signin");
  return s;
}
