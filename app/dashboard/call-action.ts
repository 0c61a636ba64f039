import type { ActionResult } from "@/lib/dashboard/types";

/**
 * Awaits a dashboard write (a server action) for react-query's mutations (reads: read.ts): its data, or an Error with the message
 * to show. A lost session (UNAUTHORIZED) sends the browser to the sign-in page, back here after.
 */
export async function callAction<T>(result: Promise<ActionResult<T>>): Promise<T> {
  const r = await result;
  if (r.ok) return r.data;
  if (r.error.code === "UNAUTHORIZED") {
    window.location.assign(`/signin?callbackUrl=${encodeURIComponent(window.location.pathname + window.location.search)}`);
  }
  // The code, and a form's refused fields when the write names them (shown beside each field).
  throw Object.assign(new Error(r.error.message), { code: r.error.code, issues: r.error.issues ?? [] });
}
