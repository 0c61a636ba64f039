"use client";

import type { HostedEstimate } from "./api";
import { classes, mmss, useTheme } from "./theme";

/** What the user sends and gets, the fee and the limits; with a fixed rate, when the quote refreshes. */
export function EstimateSummary({
  estimate,
  error,
  fixed,
  quoteLeft,
  fromSymbol,
  toSymbol,
}: {
  estimate: HostedEstimate | null;
  error: string | null;
  fixed: boolean;
  quoteLeft: number | null;
  fromSymbol: string | undefined;
  toSymbol: string | undefined;
}) {
  const { dark } = useTheme();
  const c = classes(dark);
  return (
    <div className={`rounded-lg p-3 ${c.subtle}`} aria-live="polite" data-testid="estimate">
      {estimate ? (
        <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
          <dt className={c.muted}>You send</dt>
          <dd className="text-right font-semibold tabular" data-testid="estimate-from">
            {estimate.fromAmount} {fromSymbol}
          </dd>
          <dt className={c.muted}>You get {fixed ? "" : "about"}</dt>
          <dd className="text-right text-lg font-semibold tabular" data-testid="estimate-to">
            {estimate.toAmount} {toSymbol}
          </dd>
          <dt className={c.muted}>Fee</dt>
          <dd className="text-right tabular">{estimate.fee} (included)</dd>
          <dt className={c.muted}>Limits</dt>
          <dd className="text-right tabular">
            {estimate.minAmount} – {estimate.maxAmount} {fromSymbol}
          </dd>
          {fixed && quoteLeft !== null ? (
            <>
              <dt className={c.muted}>Quote refreshes in</dt>
              <dd className="text-right tabular" data-testid="quote-countdown">
                {mmss(quoteLeft)}
              </dd>
            </>
          ) : null}
        </dl>
      ) : (
        <p className={`text-sm ${error ? c.error : c.muted}`}>{error ?? "Enter an amount to see what you get."}</p>
      )}
      {fixed && estimate ? (
        <p className={`mt-2 text-xs ${c.muted}`}>
          The fixed rate is locked when you create the order; you then have a set time to deposit.
        </p>
      ) : null}
    </div>
  );
}
