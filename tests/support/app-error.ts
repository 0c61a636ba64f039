import { AppError } from "@/lib/errors";

// What a service function refused with, for in-process tests: the AppError's code, message
// and details; anything else it threw is rethrown, and not failing at all is an error.

export type Refusal = { code: string; message: string; details: unknown };

const refusal = (e: unknown): Refusal => {
  if (e instanceof AppError) return { code: e.code, message: e.message, details: e.details };
  throw e;
};

/** `p`: a promise, or what a function that answers some calls at once (authenticateApiKey) gave. */
export async function refusalOf(p: unknown): Promise<Refusal> {
  try {
    await p;
  } catch (e) {
    return refusal(e);
  }
  throw new Error("expected an AppError");
}

export function refusalOfSync(f: () => unknown): Refusal {
  try {
    f();
  } catch (e) {
    return refusal(e);
  }
  throw new Error("expected an AppError");
}
