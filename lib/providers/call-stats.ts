import "server-only";
import { slot } from "@/lib/scope";

// Each provider's HTTP calls, counted for the console's Providers page (issue 52): per hour, how
// many, how many failed (no answer, a 5xx, a 429), and a latency histogram, from which the page
// reads the success rate and the p95. Noted in memory on the call's path (no I/O there) and
// merged into ProviderCallHour by each instance every few seconds (call-stats-flush.ts); the
// failures' messages go to ProviderCallError. This module imports no database: the adapters'
// HTTP client (http.ts) notes every call here, and the database's config imports the adapters.

/** Histogram bounds in ms; a call slower than the last counts in "+Inf". */
export const LATENCY_BOUNDS_MS = [50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 10000] as const;
/** Failure messages kept per provider per flush: an outage is one story, not a thousand rows. */
const ERRORS_PER_FLUSH = 5;

export interface HourTally {
  calls: number;
  failures: number;
  buckets: Record<string, number>;
}

export interface Pending {
  /** "provider hourISO" -> tally */
  tallies: Map<string, HourTally>;
  errors: { provider: string; call: string; message: string; at: Date }[];
}

/** What the current app noted since its last flush. */
export const pendingCalls = slot<Pending>(() => ({ tallies: new Map(), errors: [] }));

export const bucketOf = (ms: number): string => {
  for (const b of LATENCY_BOUNDS_MS) if (ms <= b) return String(b);
  return "+Inf";
};

const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / 3600_000) * 3600_000);

/** A path as a call's name: ids and other variable segments become ":id". */
export const callName = (method: string, pathname: string) =>
  `${method} ${pathname.replace(/\/[^/]*\d[^/]*(?=\/|$)/g, (seg) => (/^\/v\d+$/.test(seg) ? seg : "/:id"))}`;

/** One call to a provider: counted, and its failure's message kept. Never throws, never waits. */
export function noteProviderCall(provider: string, call: { name: string; ms: number; failure: string | null; at?: Date }): void {
  let p: Pending;
  try {
    p = pendingCalls();
  } catch {
    return; // no app, or a closed one: nothing to count into
  }
  const at = call.at ?? new Date();
  const key = `${provider} ${hourOf(at).toISOString()}`;
  const t = p.tallies.get(key) ?? { calls: 0, failures: 0, buckets: {} };
  t.calls++;
  if (call.failure) t.failures++;
  const b = bucketOf(call.ms);
  t.buckets[b] = (t.buckets[b] ?? 0) + 1;
  p.tallies.set(key, t);
  if (call.failure && p.errors.filter((e) => e.provider === provider).length < ERRORS_PER_FLUSH)
    p.errors.push({ provider, call: call.name, message: call.failure.slice(0, 500), at });
}

/** The smallest histogram bound under which `q` of the calls fall (q = 0.95: the p95), or null without calls. */
export function quantileOf(buckets: Record<string, number>, q: number): string | null {
  const total = Object.values(buckets).reduce((a, b) => a + b, 0);
  if (!total) return null;
  let seen = 0;
  for (const b of [...LATENCY_BOUNDS_MS.map(String), "+Inf"]) {
    seen += buckets[b] ?? 0;
    if (seen >= q * total) return b;
  }
  return "+Inf";
}
