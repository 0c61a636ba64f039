import { getSessionReseller, type SessionReseller } from "@/lib/auth/session";
import { AppError, isAppError } from "@/lib/errors";
import { getLogger } from "@/lib/log";
import type { ActionResult } from "./types";

// What every dashboard server action shares. An action is a public POST endpoint whatever
// page shows its button, so each one re-checks the session, hands only the session's
// reseller to lib/, and answers every failure as data (nothing internal leaks).

/** Runs a dashboard read or write and turns every failure into data. */
export async function asResult<T>(fn: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    return { ok: true, data: await fn() };
  } catch (e) {
    if (isAppError(e) && e.status < 500) return { ok: false, error: { code: e.code, message: e.message } };
    getLogger().error({ err: e }, "dashboard action failed");
    return { ok: false, error: { code: "INTERNAL_ERROR", message: "Something went wrong. Please try again." } };
  }
}

export const UNAUTHORIZED = {
  ok: false,
  error: { code: "UNAUTHORIZED", message: "Your session has ended. Please sign in again." },
} as const;

/** Runs `fn` for the signed-in reseller; without a current session, the unauthorised result. */
export async function forSessionReseller<T>(fn: (me: SessionReseller) => Promise<T>): Promise<ActionResult<T>> {
  const me = await getSessionReseller();
  if (!me) return UNAUTHORIZED;
  return asResult(() => fn(me));
}

/** A read of something the reseller does not have (or that is not theirs): NOT_FOUND. */
export function found<T>(value: T | null): T {
  if (value === null) throw new AppError("NOT_FOUND", "Not found.");
  return value;
}
