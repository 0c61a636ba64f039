import "server-only";

/** What the gauges read of a reconciliation report (lib/withdrawals/reconcile.ts, a layer above). */
export interface ReconcileReport {
  lines: { check: string; name: string; books: string; actual: string | null }[];
  differencesByCheck: Record<string, number>;
}

// /metrics' reconciliation gauges (docs/ledger.md, Reconciliation): the report of
// `npm run cli -- reconcile`, run at scrape time at most every maxAgeMs (it sums the treasury and
// provider accounts and reads the chain), one run at a time: scrapes that arrive during a run
// share it.

/** A report no older than maxAgeMs; concurrent callers share one run; a failed run is not kept. */
export function createReconcileCache(opts: { maxAgeMs: number; run: () => Promise<ReconcileReport>; now?: () => number }) {
  const now = opts.now ?? Date.now;
  let kept: { at: number; report: ReconcileReport } | null = null;
  let running: Promise<ReconcileReport> | null = null;
  return async (): Promise<ReconcileReport> => {
    if (kept && now() - kept.at < opts.maxAgeMs) return kept.report;
    running ??= opts.run().then(
      (report) => {
        kept = { at: now(), report };
        running = null;
        return report;
      },
      (e: unknown) => {
        running = null;
        throw e;
      },
    );
    return running;
  };
}

export interface ReconcileGaugeValues {
  /** Differences per check (treasury, solvency, commission): 0 when the books agree. */
  differences: { check: string; value: number }[];
  /** Per treasury account compared with the chain: the chain's balance minus the books', in the asset's units. */
  treasury: { account: string; value: number }[];
  /** The solvency line in USD: what resellers are owed, and what the treasury holds. */
  solvency: { side: "owed" | "held"; value: number }[];
}

/** The gauges' values from a report (floats: Prometheus has no decimals; the CLI has the exact figures). */
export function reconcileGaugeValues(r: ReconcileReport): ReconcileGaugeValues {
  const solvency = r.lines.find((l) => l.check === "solvency");
  return {
    differences: Object.entries(r.differencesByCheck).map(([check, value]) => ({ check, value })),
    treasury: r.lines
      .filter((l) => l.check === "treasury" && l.actual !== null)
      .map((l) => ({ account: l.name, value: Number(l.actual) - Number(l.books) })),
    solvency: solvency
      ? [
          { side: "owed", value: Number(solvency.books) },
          { side: "held", value: Number(solvency.actual) },
        ]
      : [],
  };
}
