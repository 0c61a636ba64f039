import "server-only";
import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { safeCallbackPath } from "@/lib/auth/callback";
import {
  endDashboardSession,
  ensureNextAuthUrl,
  getAuthSecret,
  getDb,
  getLogger,
  SESSION_MAX_AGE_SECONDS,
  SessionEndedError,
  sessionReseller,
  signInWithEthereum,
} from "./lib";

// next-auth 4 with one Credentials provider, "siwe": the credentials are a signed EIP-4361
// message, verified by lib/auth (signInWithEthereum). Sessions are JWTs in an http-only
// cookie (the only strategy next-auth allows for credentials); the token carries the
// reseller id, the wallet, the reseller's session version at sign-in and the id of the
// session's row, nothing else. A JWT cannot be recalled, so every use of one re-reads the
// session's row (which names the team it acts for now), its reseller and the wallet's membership: Sign out ends the row, "Sign out everywhere" and revocation
// end them all (lib/auth/session-version.ts).
// Next glue, like session.ts: lib/ imports no next-auth.

declare module "next-auth" {
  interface Session {
    resellerId: string;
    wallet: string;
    sessionVersion: number;
    sessionId: string;
  }
  interface User {
    id: string;
    wallet: string;
    sessionVersion: number;
    sessionId: string;
  }
}
declare module "next-auth/jwt" {
  interface JWT {
    resellerId?: string;
    wallet?: string;
    sessionVersion?: number;
    sessionId?: string;
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
          // An invitation link's secret (the join page, issue 54): the wallet joins that team.
          invite: { label: "Invitation", type: "text" },
        },
        async authorize(credentials) {
          const r = await signInWithEthereum(getDb(), {
            message: credentials?.message,
            signature: credentials?.signature,
            invite: credentials?.invite || undefined,
          });
          // A refusal's code reaches the sign-in page as ?error=CODE (and signIn()'s result).
          if (!r.ok) throw new Error(r.code);
          return { id: r.resellerId, wallet: r.wallet, sessionVersion: r.sessionVersion, sessionId: r.sessionId };
        },
      }),
    ],
    events: {
      // Sign out ends this session on the server too: a copy of the cookie is no session from now on.
      async signOut({ token }) {
        await endDashboardSession(getDb(), { sessionId: token?.sessionId });
      },
    },
    callbacks: {
      // Only a path of this app, decided on the parsed URL as the browser will read it (the
      // same rule as the sign-in page's, lib/auth/callback.ts); anything else means the dashboard.
      async redirect({ url, baseUrl }) {
        return `${new URL(baseUrl).origin}${safeCallbackPath(url, baseUrl)}`;
      },
      async jwt({ token, user }) {
        if (user) {
          token.resellerId = user.id;
          token.wallet = user.wallet;
          token.sessionVersion = user.sessionVersion;
          token.sessionId = user.sessionId;
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
        session.sessionId = token.sessionId ?? "";
        session.user = { name: token.wallet ?? null };
        return session;
      },
    },
  };
  return cached;
}
