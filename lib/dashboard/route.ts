import { getSessionReseller, type SessionReseller } from "@/lib/auth/session";

// The dashboard's read endpoints (GET /dashboard/api/*): each request re-checks the session
// and hands the reseller to the read model, which scopes every query by its id. Answers are
// private to the signed-in user and never cached by anything in between.

const HEADERS = { "Cache-Control": "private, no-store", Vary: "Cookie" };

/**
 * A JSON response built with `new Response` rather than the static `Response.json`: when
 * @hono/node-server overrides the global Response (its default), `Response.json` returns an
 * instance of the original class, which Next's route-handler check then rejects.
 */
export function jsonResponse(data: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(JSON.stringify(data), {
    status: init.status ?? 200,
    headers: { "Content-Type": "application/json; charset=utf-8", ...init.headers },
  });
}

export function dashboardError(status: number, code: string, message: string) {
  return jsonResponse({ error: { code, message } }, { status, headers: HEADERS });
}

export async function dashboardGet(read: (me: SessionReseller) => Promise<unknown>): Promise<Response> {
  const me = await getSessionReseller();
  if (!me) return dashboardError(401, "UNAUTHORIZED", "Sign in to continue.");
  try {
    const data = await read(me);
    if (data === null) return dashboardError(404, "NOT_FOUND", "Not found.");
    return jsonResponse(data, { headers: HEADERS });
  } catch (e) {
    console.error("dashboard read failed", e);
    return dashboardError(500, "INTERNAL_ERROR", "Something went wrong.");
  }
}
