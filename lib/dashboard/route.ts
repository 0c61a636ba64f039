import "server-only";
import { AppError } from "@/lib/errors";
import { errorAnswer } from "@/lib/http/errors";
import { SERVICE_INSTANCE_ID } from "@/lib/instance";

// JSON answers of the dashboard's route handlers and of the sign-in nonce. Errors have the
// v1 API's shape and statuses (one builder: lib/http/errors.ts). Every answer names the
// copy of lib/ that made it (Service-Instance; see lib/instance.ts).

/** Answers private to the signed-in user, never cached by anything in between. */
const PRIVATE = { "Cache-Control": "private, no-store", Vary: "Cookie" };

export function jsonResponse(data: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(JSON.stringify(data), {
    status: init.status ?? 200,
    headers: { "Content-Type": "application/json; charset=utf-8", "Service-Instance": SERVICE_INSTANCE_ID, ...init.headers },
  });
}

/** The error answer to anything thrown (unknown errors are logged and masked as a 500). */
export function dashboardError(e: unknown, headers: Record<string, string> = {}): Response {
  const a = errorAnswer(e, "a dashboard route");
  return jsonResponse(a.body, { status: a.status, headers: { ...headers, ...a.headers } });
}

/**
 * A read endpoint (GET /dashboard/api/*): `me` is the request's signed-in reseller (null
 * without a session) and `read` the read model, which scopes every query by its id.
 */
export async function dashboardRead<Me>(me: Me | null, read: (me: Me) => Promise<unknown>): Promise<Response> {
  try {
    if (!me) throw new AppError("UNAUTHORIZED", "Sign in to continue.");
    const data = await read(me);
    if (data === null) throw new AppError("NOT_FOUND", "Not found.");
    return jsonResponse(data, { headers: PRIVATE });
  } catch (e) {
    return dashboardError(e, PRIVATE);
  }
}
