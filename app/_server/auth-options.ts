import "server-only";
import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { ensureNextAuthUrl, getAuthSecret, getDb, getLogger, SessionEndedError, sessionReseller, signInWithEthereum } from "./lib";

// next-auth 4 with one Credentials provider, "siwe": the credentials are a signed EIP-4361
// message, verified by lib/auth (signInWithEthereum). Sessions are JWTs in an http-only
// cookie (the only strategy next-auth allows for credentials); the token carries the
// reseller id, the wallet and the reseller's session version at sign-in, nothing else. A
// JWT cannot be recalled, so every use of one re-reads the reseller: "Sign out everywhere"
// and revocation raise the version and end them all (lib/auth/session-version.ts).
// Next glue, like session.ts: lib/ imports no next-auth.

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
          const r = await signInWithEthereum(getDb(), { message: credentials?.message, signature: credentials?.signature });
          // A refusal's code reaches the sign-in page as ?error=CODE (and signIn()'s result).
          if (!r.ok) throw new Error(r.code);
          return { id: r.resellerId, wallet: r.wallet, sessionVersion: r.sessionVersion };
        },
      }),
    ],
    callbacks: {
      // next-auth's default, except that a callbackUrl that is not a URL (a client's garbage)
      // means "home" instead of a TypeError and a 500.
      async redirect({ url, baseUrl }) {
        if (url.startsWith("/")) return `${baseUrl}${url}`;
        try {
          if (new URL(url).origin === baseUrl) return url;
        } catch {
          // not a URL
        }
        return baseUrl;
      },
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
        if (!(await sessionReseller(getDb(), token))) throw new SessionEndedError();
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
