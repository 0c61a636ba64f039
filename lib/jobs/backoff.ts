/**
 * How long to wait before retrying after the `attempt`-th failure in a row (1-based):
 * base x 2^(attempt-1), plus up to 20% jitter so that many orders failing together (an
 * upstream outage) do not retry in lockstep, and never more than `maxMs`.
 */
export function retryDelayMs(attempt: number, opts: { baseMs: number; maxMs: number }, random: () => number = Math.random): number {
  const exponential = opts.baseMs * 2 ** Math.max(0, attempt - 1);
  return Math.round(Math.min(opts.maxMs, exponential * (1 + 0.2 * random())));
}
