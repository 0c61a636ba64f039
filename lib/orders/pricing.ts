import "server-only";
import { getCurrency } from "@/lib/currencies";
import type { Currency } from "@/lib/currencies/types";
import type { EngineContext, PairTerms } from "@/lib/engine";
import { getEngine } from "@/lib/engine";
import { AppError } from "@/lib/errors";
import { type Dec, formatAmount, parseDecimal } from "@/lib/money/decimal";
import { num } from "@/lib/money/json-number";

// Checks shared by /estimate and /exchange, in the order a client would want to hear them.

export function resolveCurrency(ticker: unknown, field: string): Currency {
  const c = typeof ticker === "string" ? getCurrency(ticker) : undefined;
  if (!c) throw new AppError("UNKNOWN_CURRENCY", `Unknown currency '${String(ticker)}'.`, { field });
  if (!c.isAvailable) throw new AppError("CURRENCY_UNAVAILABLE", `${c.name} (${c.ticker}) is not available right now.`, { field });
  return c;
}

export function resolvePair(fromTicker: unknown, toTicker: unknown): { from: Currency; to: Currency } {
  const from = resolveCurrency(fromTicker, "from");
  const to = resolveCurrency(toTicker, "to");
  if (from.ticker === to.ticker) throw new AppError("SAME_CURRENCY", "Source and destination currencies must differ.");
  return { from, to };
}

/** A positive decimal with no more places than the currency's precision. */
export function parseAmount(input: unknown, currency: Currency): Dec {
  const text = typeof input === "number" && Number.isFinite(input) ? String(input) : input;
  const amount = typeof text === "string" ? parseDecimal(text.trim()) : null;
  if (!amount || amount.lte(0)) throw new AppError("INVALID_AMOUNT", 'The amount must be a positive decimal number, e.g. "0.5".');
  if (amount.decimalPlaces() > currency.precision)
    throw new AppError("INVALID_AMOUNT", `${currency.ticker} amounts have at most ${currency.precision} decimal places.`);
  return amount;
}

export async function getTermsWithinLimits(from: Currency, to: Currency, amount: Dec, ctx: EngineContext): Promise<PairTerms> {
  const terms = await getEngine().getPairTerms(from, to, ctx);
  const limits = { minAmount: num(terms.minAmount), maxAmount: num(terms.maxAmount) };
  if (amount.lt(terms.minAmount))
    throw new AppError(
      "AMOUNT_TOO_LOW",
      `The minimum for ${from.ticker} -> ${to.ticker} is ${formatAmount(terms.minAmount)} ${from.ticker}.`,
      limits,
    );
  if (amount.gt(terms.maxAmount))
    throw new AppError(
      "AMOUNT_TOO_HIGH",
      `The maximum for ${from.ticker} -> ${to.ticker} is ${formatAmount(terms.maxAmount)} ${from.ticker}.`,
      limits,
    );
  return terms;
}
