import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getDb } from "@/lib/db/client";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { ensureNextAuthUrl } from "./origin";
import { getAuthSecret } from "./secret";
import { SiweError, verifySiweSignIn } from "./siwe";

// next-auth 4 with one Credentials provider, "siwe": the credentials are a signed EIP-4361
// message. Sessions are JWTs in an http-only cookie (the only strategy next-auth allows for
// credentials); the token carries the reseller id and wallet, nothing else.

export const SESSION_MAX_AGE_SECONDS = 24 * 60 * 60;

declare module "next-auth" {
  interface Session {
    resellerId: string;
    wallet: string;
  }
  interface User {
    id: string;
    wallet: string;
  }
}
declare module "next-auth/jwt" {
  interface JWT {
    resellerId?: string;
    wallet?: string;
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
            return { id: reseller.id, wallet: reseller.walletAddress };
          } catch (e) {
            // The code reaches the sign-in page as ?error=CODE (and signIn()'s result).
            if (e instanceof SiweError) throw new Error(e.code);
            console.error("sign-in failed", e);
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
          token.sub = user.id;
          token.name = user.wallet;
        }
        return token;
      },
      async session({ session, token }) {
        session.resellerId = token.resellerId ?? "";
        session.wallet = token.wallet ?? "";
        session.user = { name: token.wallet ?? null };
        return session;
      },
    },
  };
  return cached;
}
