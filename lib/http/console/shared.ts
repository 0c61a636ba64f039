import "server-only";
import { z } from "zod";
import { getAppOrigin } from "@/lib/auth/origin";
import type { Actor } from "@/lib/operators/audit";
import type { OperatorSession } from "@/lib/operators/sessions";
import { OPERATOR_COOKIE } from "@/lib/operators/sessions";
import type { ApiRequest } from "../request";
import { readJsonBody } from "../respond";
import { type ApiContext, parseWith, type RouteSpec } from "../route";

// What every console route shares (issue 52): its table entry's shape, the body reader, the
// actor an action is recorded under, and the session cookie.

/** One route of the console's API, served under /api/console (lib/http/app.ts). */
export interface ConsoleRoute extends Omit<RouteSpec, "auth"> {
  method: "GET" | "POST";
  path: string;
  /** "operator" (the default): a signed-in operator whose role allows `permission`; "page": the sign-in's own routes. */
  auth?: "operator" | "page";
}

/** Console bodies are small: a reason, an address, a signature. */
const MAX_BODY = 16 * 1024;

/** The body parsed by `schema`; a request without a body is read as {}. */
export async function consoleBody<S extends z.ZodType>(req: ApiRequest, schema: S): Promise<z.infer<S>> {
  const raw = req.hasBody ? await readJsonBody(req, MAX_BODY) : {};
  // Numbers arrive exact (lossless-json); the console's bodies take none as numbers but bps, read as text.
  return parseWith(
    schema,
    JSON.parse(JSON.stringify(raw, (_k, v) => (v && typeof v === "object" && "isLosslessNumber" in v ? String(v) : v))),
  );
}

export const query = (req: ApiRequest) => Object.fromEntries(req.query.entries());

/** The operator of an "operator" route (the wrapper guarantees one). */
export function operatorOf(ctx: ApiContext): OperatorSession {
  if (!ctx.operator) throw new Error("a console route without a session");
  return ctx.operator;
}

/** Who an action is recorded as. */
export function actorOf(ctx: ApiContext): Actor {
  const op = operatorOf(ctx).operator;
  return { operatorId: op.id, actor: op.walletAddress, role: op.role };
}

/** A reason, required for actions that change what others see: 1 to 500 characters. */
export const reason = z.string().trim().min(1, "a reason is required").max(500);

export function sessionCookie(token: string, maxAgeSeconds: number): string {
  const secure = getAppOrigin().protocol === "https:" ? "; Secure" : "";
  return `${OPERATOR_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}${secure}`;
}
