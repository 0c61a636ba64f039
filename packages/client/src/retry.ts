// When a call is tried again, and after how long. Retried: a network failure (no answer),
// 429 and 5xx, and only for calls that are safe to repeat: reads, the calls the API makes
// idempotent (a refund address again, the sandbox's engine switch), and creations that carry
// an Idempotency-Key (the API answers the same order to the same key and body). Never
// another 4xx: the request is wrong, and the same request stays wrong.

export interface RetryOptions {
  /** Attempts in all, the first included (1: no retries). Default 3. */
  maxAttempts?: number;
  /** The first backoff; doubled each time, with full jitter. Default 300 ms. */
  baseDelayMs?: number;
  /** The longest backoff. Default 10 s. */
  maxDelayMs?: number;
  /** A 429 or 503 whose Retry-After is longer than this is not waited for (a daily limit): thrown at once. Default 60 s. */
  maxRetryAfterSeconds?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 300, maxDelayMs: 10_000, maxRetryAfterSeconds: 60 };

/** The policy of `opts`: false turns retries off. */
export function retryPolicy(opts: RetryOptions | false | undefined): RetryPolicy {
  if (opts === false) return { ...DEFAULT_RETRY, maxAttempts: 1 };
  return { ...DEFAULT_RETRY, ...opts, maxAttempts: Math.max(1, Math.floor(opts?.maxAttempts ?? DEFAULT_RETRY.maxAttempts)) };
}

/** What came of one attempt: an HTTP status, or no answer at all (a network failure). */
export type Outcome = { status: number; retryAfterSeconds?: number | null } | { networkError: unknown };

/**
 * The wait before the next attempt in ms, or null when the call is not tried again.
 * `attempt` is the attempt that just failed (1-based); `safe`: the call may be repeated.
 */
export function retryDelay(policy: RetryPolicy, outcome: Outcome, attempt: number, safe: boolean, random = Math.random): number | null {
  if (!safe || attempt >= policy.maxAttempts) return null;
  const backoff = () => Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)));
  if ("networkError" in outcome) return backoff();
  const { status } = outcome;
  if (status !== 429 && !(status >= 500 && status <= 599)) return null;
  const after = outcome.retryAfterSeconds;
  if (after !== null && after !== undefined) return after > policy.maxRetryAfterSeconds ? null : Math.max(after * 1000, backoff());
  return backoff();
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
