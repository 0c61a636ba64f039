import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getDb } from "@/lib/db/client";
import { getLogger } from "@/lib/log";
import { getOrCreateReseller, getResellerById } from "@/lib/resellers/resellers";
import { ensureNextAuthUrl } from "./origin";
import { getAuthSecret } from "./secret";
import { isSessionCurrent, SessionEndedError } from "./session-version";
import { SiweError, verifySiweSignIn } from "./siwe";

// next-auth 4 with one Credentials provider, "siwe": the credentials are a signed EIP-4361
// message. Sessions are JWTs in an http-only cookie (the only strategy next-auth allows for
// credentials); the token carries the reseller id, the wallet and the reseller's session
// version at sign-in, nothing else. A JWT cannot be recalled, so every use of one re-reads
// the reseller: "Sign out everywhere" and revocation raise the version and end them all.

export const SESSION_MAX_AGE_SECONDS = 24 * 60 * 60;

declare module "next-auth" {
  interface Session {
    resellerId: string;
    wallet: string;
    sessionVersion: number;
  }
  interface User {
    id: string;
    wallet: string;
    sessionVersion: number;
  }
}
declare module "next-auth/jwt" {
  interface JWT {
    resellerId?: string;
    wallet?: string;
    sessionVersion?: number;
  }
}

/** A sign-in refused for the account rather than for the message. */
class SignInRefused extends Error {
  constructor(readonly code: "ACCOUNT_DISABLED") {
    super(code);
  }
}

let cached: AuthOptions | null = null;

/** Built on first use (not at import), so `next build` never touches the data folder. */
export function getAuthOptions(): AuthOptions {
  if (cached) return cached;
  ensureNextAuthUrl();
  cached = {
    secret: getAuthSecret(),
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS, updateAge: 60 * 60 },
    pages: { signIn: "/signin", error: "/signin" },
    logger: {
      // An ended session is expected, not an error worth a stack trace per request.
      error(code, metadata) {
        const err = (metadata as { error?: unknown } | undefined)?.error ?? metadata;
        if (err instanceof SessionEndedError || (err as Error | undefined)?.name === "SessionEndedError") return;
        getLogger().error({ code, err }, "next-auth error");
      },
      warn(code) {
        getLogger().warn({ code }, "next-auth warning");
      },
      debug() {},
    },
    providers: [
      CredentialsProvider({
        id: "siwe",
        name: "Ethereum",
        credentials: {
          message: { label: "Message", type: "text" },
          signature: { label: "Signature", type: "text" },
        },
        async authorize(credentials) {
          const db = getDb();
          try {
            const { walletAddress } = await verifySiweSignIn(db, {
              message: credentials?.message,
              signature: credentials?.signature,
            });
            // The first sign-in of a wallet creates its reseller.
            const reseller = await getOrCreateReseller(db, { walletAddress });
            if (reseller.revokedAt) throw new SignInRefused("ACCOUNT_DISABLED");
            return { id: reseller.id, wallet: reseller.walletAddress, sessionVersion: reseller.sessionVersion };
          } catch (e) {
            // The code reaches the sign-in page as ?error=CODE (and signIn()'s result).
            if (e instanceof SiweError || e instanceof SignInRefused) throw new Error(e.code);
            getLogger().error({ err: e }, "sign-in failed");
            throw new Error("SIGN_IN_FAILED");
          }
        },
      }),
    ],
    callbacks: {
      async jwt({ token, user }) {
        if (user) {
          token.resellerId = user.id;
          token.wallet = user.wallet;
          token.sessionVersion = user.sessionVersion;
          token.sub = user.id;
          token.name = user.wallet;
          return token;
        }
        // Every later use of the cookie: still the current session of a reseller in good
        // standing? Throwing makes next-auth answer "no session" and clear the cookie.
        const reseller = token.resellerId ? await getResellerById(getDb(), { resellerId: token.resellerId }) : null;
        if (!isSessionCurrent(reseller, token)) throw new SessionEndedError();
        return token;
      },
      async session({ session, token }) {
        session.resellerId = token.resellerId ?? "";
        session.wallet = token.wallet ?? "";
        session.sessionVersion = token.sessionVersion ?? 0;
        session.user = { name: token.wallet ?? null };
        return session;
      },
    },
  };
  return cached;
}
