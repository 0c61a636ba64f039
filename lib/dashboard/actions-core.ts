import { isAppError } from "@/lib/errors";
import type { ActionResult } from "./types";

/** Runs a dashboard mutation and turns every failure into data: nothing internal leaks. */
export async function asResult<T>(fn: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    return { ok: true, data: await fn() };
  } catch (e) {
    if (isAppError(e) && e.status < 500) return { ok: false, error: { code: e.code, message: e.message } };
    console.error("dashboard action failed", e);
    return { ok: false, error: { code: "INTERNAL_ERROR", message: "Something went wrong. Please try again." } };
  }
}

export const UNAUTHORIZED = {
  ok: false,
  error: { code: "UNAUTHORIZED", message: "Your session has ended. Please sign in again." },
} as const;
