import "server-only";
import { z } from "zod";
import type { ActionResult } from "@/lib/dashboard/types";
import type { DashboardPermission } from "@/lib/teams/roles";
import { parseInput, requirePermission } from "./lib";
import { forSessionReseller, type SessionReseller } from "./session";

// How every dashboard server action (the writes, app/dashboard/actions.ts) is made: the
// permission it needs (lib/teams/roles.ts), its arguments' schema, then what it does for the
// session's reseller. The reads are GET route handlers (lib/dashboard/reads.ts), never actions:
// tests/dashboard/reads-not-actions.test.ts.

/** The schema of an action's arguments, one per parameter; arguments past them are ignored, as a function ignores them. */
export const args = <const T extends [z.ZodType, ...z.ZodType[]]>(...params: T) => z.tuple(params, z.unknown());

/** An action that takes no arguments (any it is sent are ignored). */
export const noArgs = z.array(z.unknown());

/**
 * A text argument of at most `max` characters. Anything else reaches the service as "", which
 * refuses it with its own error (an id that is "" is NOT_FOUND), as the service would for any
 * wrong id.
 */
export const text = (max: number) => z.string().max(max).catch("");

/**
 * A server action: re-checks the session (none: the unauthorised result), checks that the
 * member's role, read from the database now, may do `permission` (else FORBIDDEN, before
 * anything is parsed or done), parses the arguments with `schema` (a wrong shape:
 * INVALID_REQUEST), then runs `fn` for the session's reseller; any failure is answered as data
 * with its code (lib/dashboard/actions-core.ts).
 */
export function sessionAction<A, T>(
  permission: DashboardPermission,
  schema: z.ZodType<A>,
  fn: (args: A, me: SessionReseller) => Promise<T>,
) {
  return async (...input: unknown[]): Promise<ActionResult<T>> =>
    forSessionReseller((me) => {
      requirePermission(me, permission);
      return fn(parseInput(schema, input), me);
    });
}
