import "server-only";
import type { z } from "zod";
import { AppError } from "@/lib/errors";
import { errorAnswer } from "@/lib/http/errors";
import type { ActionResult } from "./types";

// What every dashboard server action shares. An action is a public POST endpoint whatever
// page shows its button, so each one re-checks the session (sessionAction in
// app/_server/action.ts), checks its input against its schema, hands only the session's
// reseller to lib/, and answers every failure as data (nothing internal leaks).

/**
 * Runs a dashboard read or write and turns every failure into data: the error's code and
 * message when it is an AppError, a masked INTERNAL_ERROR (logged) otherwise.
 */
export async function asResult<T>(fn: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    return { ok: true, data: await fn() };
  } catch (e) {
    const { error } = errorAnswer(e, "a dashboard action").body;
    // A form's field issues go along (fields, reasons and messages of ours; nothing internal).
    const issues = e instanceof AppError && Array.isArray(e.details?.fieldIssues) ? { issues: e.details.fieldIssues } : {};
    return { ok: false, error: { code: error.code, message: error.message, ...issues } };
  }
}

/** Whether a NUL character is anywhere in `v` (strings, arrays, plain objects). */
function hasNul(v: unknown, depth = 0): boolean {
  if (typeof v === "string") return v.includes("\u0000");
  if (depth > 8 || v === null || typeof v !== "object") return false;
  return (Array.isArray(v) ? v : Object.values(v)).some((x) => hasNul(x, depth + 1));
}

/**
 * An action's input checked against its schema: a wrong shape is INVALID_REQUEST, never a crash,
 * and nothing of it is echoed. A NUL anywhere is refused too: no text of ours has one, and
 * PostgreSQL refuses it in any text parameter (an error, a 500, where SQLite stored it).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  if (hasNul(input)) throw new AppError("INVALID_REQUEST", "Text may not contain control characters such as NUL.");
  const r = schema.safeParse(input);
  if (!r.success) throw new AppError("INVALID_REQUEST", "The request is not valid.");
  return r.data;
}

export const UNAUTHORIZED = {
  ok: false,
  error: { code: "UNAUTHORIZED", message: "Your session has ended. Please sign in again." },
} as const;

/** A read of something the reseller does not have (or that is not theirs): NOT_FOUND. */
export function found<T>(value: T | null): T {
  if (value === null) throw new AppError("NOT_FOUND", "Not found.");
  return value;
}
