import "server-only";
import { AppError } from "@/lib/errors";
import type { EngineContext } from "./types";

/**
 * Runs one engine call with a deadline: the signal asks the engine to stop, and the caller
 * stops waiting at the deadline even if the engine does not listen. Callers hold a claim on
 * the order for longer than the deadline, so a call that overruns can never overlap the next
 * holder's call.
 */
export async function callEngine<T>(ms: number, ctx: EngineContext, call: (ctx: EngineContext) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const timer = setTimeout(
    () => ac.abort(new AppError("ENGINE_UNAVAILABLE", `The exchange engine did not answer within ${ms} ms; try again later.`)),
    ms,
  );
  const timedOut = new Promise<never>((_, reject) => ac.signal.addEventListener("abort", () => reject(ac.signal.reason), { once: true }));
  try {
    return await Promise.race([call({ ...ctx, signal: ac.signal }), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
