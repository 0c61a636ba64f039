import "server-only";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { getLogger } from "@/lib/log";
import { getOrCreateReseller, getResellerByWallet } from "@/lib/resellers/resellers";
import { acceptInvite, defaultTeam } from "@/lib/teams/team";
import type { SiweFailure } from "./messages";
import { startDashboardSession } from "./session-version";
import { SiweError, verifySiweSignIn } from "./siwe";

export type InviteFailure = "INVITE_USED" | "INVITE_EXPIRED" | "INVITE_REVOKED" | "INVITE_NOT_FOUND" | "ALREADY_MEMBER";

export type SignInResult =
  | { ok: true; resellerId: string; wallet: string; sessionVersion: number; sessionId: string }
  | { ok: false; code: SiweFailure | InviteFailure | "ACCOUNT_DISABLED" | "NOT_A_MEMBER" | "SIGN_IN_FAILED" };

const INVITE_FAILURES: readonly string[] = ["INVITE_USED", "INVITE_EXPIRED", "INVITE_REVOKED", "INVITE_NOT_FOUND", "ALREADY_MEMBER"];

/**
 * A dashboard sign-in: the signed Sign-In with Ethereum message is verified, then the team the
 * session acts for is decided (issue 54):
 * - with an invitation's secret (the join link), the wallet joins that team with the invited
 *   role and the session is that team's; no reseller of its own is created. A used, expired or
 *   revoked link refuses the sign-in with its code and grants nothing;
 * - otherwise, the wallet's own reseller's team, else its oldest team; a wallet in no team and
 *   with no reseller gets a new reseller of which it is the owner (as before teams); a wallet
 *   whose reseller exists but that is no longer in its team (it left, or was removed) is refused.
 * A revoked reseller is refused. The session carries the reseller's session version at sign-in
 * and the id of the session row made for it (session-version.ts). Anything unexpected is logged
 * and answered SIGN_IN_FAILED.
 */
export async function signInWithEthereum(
  db: Db,
  credentials: { message: unknown; signature: unknown; invite?: unknown },
): Promise<SignInResult> {
  try {
    const { walletAddress } = await verifySiweSignIn(db, credentials);
    const wallet = walletAddress.toLowerCase();
    let resellerId: string;
    if (credentials.invite) {
      resellerId = (await acceptInvite(db, { secret: credentials.invite, walletAddress: wallet })).resellerId;
    } else {
      const team = await defaultTeam(db, { walletAddress: wallet });
      if (team) resellerId = team.resellerId;
      else if (await getResellerByWallet(db, { walletAddress: wallet })) return { ok: false, code: "NOT_A_MEMBER" };
      else resellerId = (await getOrCreateReseller(db, { walletAddress: wallet })).id;
    }
    const reseller = await db.reseller.findUniqueOrThrow({ where: { id: resellerId } });
    if (reseller.revokedAt) return { ok: false, code: "ACCOUNT_DISABLED" };
    const sessionId = await startDashboardSession(db, { resellerId, walletAddress: wallet });
    return { ok: true, resellerId, wallet, sessionVersion: reseller.sessionVersion, sessionId };
  } catch (e) {
    if (e instanceof SiweError) return { ok: false, code: e.code };
    if (e instanceof AppError && INVITE_FAILURES.includes(e.code)) return { ok: false, code: e.code as InviteFailure };
    getLogger().error({ err: e }, "sign-in failed");
    return { ok: false, code: "SIGN_IN_FAILED" };
  }
}
