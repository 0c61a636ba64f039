import "server-only";
import { errorAnswer } from "@/lib/http/errors";
import type { ActionResult } from "./types";

/**
 * Runs a dashboard mutation and turns every failure into data: the error's code and message
 * when it is the caller's to fix, a masked INTERNAL_ERROR (logged) otherwise.
 */
export async function asResult<T>(fn: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    return { ok: true, data: await fn() };
  } catch (e) {
    const { error } = errorAnswer(e, "a dashboard action").body;
    return { ok: false, error: { code: error.code, message: error.message } };
  }
}

export const UNAUTHORIZED = {
  ok: false,
  error: { code: "UNAUTHORIZED", message: "Your session has ended. Please sign in again." },
} as const;
