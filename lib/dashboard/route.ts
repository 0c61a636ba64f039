import "server-only";
import { AppError } from "@/lib/errors";
import { errorAnswer } from "@/lib/http/errors";
import { SERVICE_INSTANCE_ID } from "@/lib/instance";

// Responses of the dashboard's route handlers: its reads (lib/dashboard/reads.ts), the sign-in
// nonce, the CSV downloads. Its writes are server actions (app/dashboard/actions.ts). Errors
// have the v1 API's shape and statuses (one builder: lib/http/errors.ts). Every answer
// names the copy of lib/ that made it (Service-Instance; see lib/instance.ts).

/** Answers private to the signed-in user, never cached by anything in between. */
export const PRIVATE = { "Cache-Control": "private, no-store", Vary: "Cookie" };

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

/** A route handler's answer to a request without a current session. */
export function unauthorizedResponse(): Response {
  return dashboardError(new AppError("UNAUTHORIZED", "Sign in to continue."), PRIVATE);
}

/** A signed-in member whose role may not do this (lib/teams/roles.ts): 403 FORBIDDEN. */
export function forbiddenResponse(): Response {
  return dashboardError(new AppError("FORBIDDEN", "Your role in this team does not allow this."), PRIVATE);
}

/** A streamed CSV attachment; `name` is ours (ASCII, no quotes). */
export function csvDownload(body: ReadableStream<Uint8Array>, name: string): Response {
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}"`,
      "X-Content-Type-Options": "nosniff",
      "Service-Instance": SERVICE_INSTANCE_ID,
      ...PRIVATE,
    },
  });
}

/**
 * Requests next-auth would answer with a 500 and a stack trace, answered here first: a GET of
 * a callback (this dashboard's only provider takes credentials, which next-auth accepts by
 * POST only) and a malformed JSON body (next-auth's `req.json()` lets the syntax error
 * escape). server.ts has already bounded the body's size. Null when next-auth may go ahead.
 */
export async function nextAuthRefusal(req: Request, action: string | undefined): Promise<Response | null> {
  if (action === "callback" && req.method !== "POST")
    return dashboardError(new AppError("METHOD_NOT_ALLOWED", "Sign-in callbacks take POST."), { Allow: "POST" });
  if (req.method !== "POST" || !(req.headers.get("content-type") ?? "").includes("application/json")) return null;
  try {
    JSON.parse(await req.clone().text());
    return null;
  } catch {
    return dashboardError(new AppError("MALFORMED_JSON", "The body is not valid JSON."));
  }
}
