import "server-only";
import { z } from "zod";
import { issueNonce } from "@/lib/auth/nonce";
import { getAllowedChainIds, getAppOrigin } from "@/lib/auth/origin";
import { getDb } from "@/lib/db/client";
import { toOperatorView } from "@/lib/operators/operators";
import { actionsOf } from "@/lib/operators/roles";
import { signInOperator, signOutOperator } from "@/lib/operators/sessions";
import { limitSigninNonce } from "@/lib/ratelimit/limiter";
import { type ConsoleRoute, consoleBody, operatorOf, sessionCookie } from "./shared";

// Signing in to the console with a wallet (Sign-In with Ethereum, lib/operators/sessions.ts).

const signInBody = z.object({ message: z.string().min(1).max(4000), signature: z.string().min(1).max(2000) });

export const AUTH_ROUTES: ConsoleRoute[] = [
  {
    auth: "page",
    method: "POST",
    path: "/auth/nonce",
    handler: async ({ env }) => {
      await limitSigninNonce(env.ip);
      const { nonce, expiresAt } = await issueNonce(getDb());
      const origin = getAppOrigin();
      // What the message must name: the console signs in on the app's own origin, as the dashboard does.
      return {
        body: { nonce, expiresAt: expiresAt.toISOString(), domain: origin.host, uri: origin.origin, chainIds: getAllowedChainIds() },
      };
    },
  },
  {
    auth: "page",
    method: "POST",
    path: "/auth/sign-in",
    handler: async ({ req }) => {
      const body = await consoleBody(req, signInBody);
      const r = await signInOperator(getDb(), body);
      return {
        body: { operator: toOperatorView(r.operator), actions: actionsOf(r.operator.role), expiresAt: r.expiresAt.toISOString() },
        headers: { "Set-Cookie": sessionCookie(r.token, (r.expiresAt.getTime() - Date.now()) / 1000) },
      };
    },
  },
  {
    method: "POST",
    path: "/auth/sign-out",
    permission: "queue.read",
    handler: async (ctx) => {
      await signOutOperator(getDb(), operatorOf(ctx));
      return { body: { signedOut: true }, headers: { "Set-Cookie": sessionCookie("", 0) } };
    },
  },
  {
    method: "GET",
    path: "/me",
    permission: "queue.read",
    handler: async (ctx) => {
      const op = operatorOf(ctx).operator;
      return { body: { operator: toOperatorView(op), actions: actionsOf(op.role) } };
    },
  },
];
