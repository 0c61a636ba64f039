// Responses of the dashboard's few route handlers (the sign-in nonce, the CSV downloads).
// Reads and writes of the pages are server actions; a download needs a plain GET.

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

/** Private to the signed-in user: never cached by anything in between. */
const PRIVATE = { "Cache-Control": "private, no-store", Vary: "Cookie" };

export function unauthorizedResponse(): Response {
  return jsonResponse({ error: { code: "UNAUTHORIZED", message: "Sign in to continue." } }, { status: 401, headers: PRIVATE });
}

/** A streamed CSV attachment; `name` is ours (ASCII, no quotes). */
export function csvDownload(body: ReadableStream<Uint8Array>, name: string): Response {
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}"`,
      "X-Content-Type-Options": "nosniff",
      ...PRIVATE,
    },
  });
}
