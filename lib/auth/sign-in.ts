import "server-only";
import type { Db } from "@/lib/db/client";
import { getLogger } from "@/lib/log";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import type { SiweFailure } from "./messages";
import { startDashboardSession } from "./session-version";
import { SiweError, verifySiweSignIn } from "./siwe";

export type SignInResult =
  | { ok: true; resellerId: string; wallet: string; sessionVersion: number; sessionId: string }
  | { ok: false; code: SiweFailure | "ACCOUNT_DISABLED" | "SIGN_IN_FAILED" };

/**
 * A dashboard sign-in: the signed Sign-In with Ethereum message is verified, then the
 * wallet's reseller is found, or created on its first sign-in; a revoked reseller is
 * refused. The session carries the reseller's session version at sign-in and the id of the
 * session row made for it (see session-version.ts). A refusal comes back as the code the sign-in page explains; anything
 * unexpected is logged and answered SIGN_IN_FAILED.
 */
export async function signInWithEthereum(db: Db, credentials: { message: unknown; signature: unknown }): Promise<SignInResult> {
  try {
    const { walletAddress } = await verifySiweSignIn(db, credentials);
    const reseller = await getOrCreateReseller(db, { walletAddress });
    if (reseller.revokedAt) return { ok: false, code: "ACCOUNT_DISABLED" };
    const sessionId = await startDashboardSession(db, { resellerId: reseller.id });
    return { ok: true, resellerId: reseller.id, wallet: reseller.walletAddress, sessionVersion: reseller.sessionVersion, sessionId };
  } catch (e) {
    if (e instanceof SiweError) return { ok: false, code: e.code };
    getLogger().error({ err: e }, "sign-in failed");
    return { ok: false, code: "SIGN_IN_FAILED" };
  }
}
