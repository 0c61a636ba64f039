import "server-only";
import { isLosslessNumber } from "lossless-json";
import { getCurrency } from "@/lib/currencies";
import type { Currency } from "@/lib/currencies/types";
import type { EngineContext, PairTerms } from "@/lib/engine";
import { getEngine } from "@/lib/engine";
import { AppError } from "@/lib/errors";
import {
  ceilAmount,
  type Dec,
  floorAmount,
  formatAmount,
  MAX_INTEGER_DIGITS,
  MAX_SIGNIFICANT_DIGITS,
  parseDecimal,
  parseNumberText,
} from "@/lib/money/decimal";
import { num } from "@/lib/money/json-number";

// Checks shared by /estimate and /exchange, in the order a client would want to hear them.

export function resolveCurrency(ticker: unknown, field: string): Currency {
  const c = typeof ticker === "string" ? getCurrency(ticker) : undefined;
  if (!c) throw new AppError("UNKNOWN_CURRENCY", `Unknown currency '${String(ticker)}'.`, { field });
  // With an upstream engine: only while some enabled provider offers it (as /currencies says).
  if (!c.isAvailable || getEngine().availability?.().offers(c.ticker) === false)
    throw new AppError("CURRENCY_UNAVAILABLE", `${c.name} (${c.ticker}) is not available right now.`, { field });
  return c;
}

export function resolvePair(fromTicker: unknown, toTicker: unknown): { from: Currency; to: Currency } {
  const from = resolveCurrency(fromTicker, "from");
  const to = resolveCurrency(toTicker, "to");
  if (from.ticker === to.ticker) throw new AppError("SAME_CURRENCY", "Source and destination currencies must differ.");
  return { from, to };
}

/**
 * The amount a client sent: a decimal string ("0.5"), or a JSON number read from its exact
 * text (request bodies are parsed losslessly, lib/http/respond.ts), which may use an
 * exponent ("5e-1"). Positive, with at most the currency's decimal places and at most 15
 * significant digits, so that every amount the API echoes is exact for every client
 * (docs/api.md, Amounts). A refusal quotes the value exactly as received.
 */
export function parseAmount(input: unknown, currency: Currency): Dec {
  const number = isLosslessNumber(input);
  const text = number ? input.toString() : typeof input === "string" ? input.trim() : null;
  const amount = text === null ? null : number ? parseNumberText(text) : parseDecimal(text);
  // A refusal quotes what was sent, cut short: the body may hold a 16 KB number.
  const sent = text && text.length > 40 ? `${text.slice(0, 40)}...` : text;
  if (!amount || amount.lte(0))
    throw new AppError("INVALID_AMOUNT", `The amount must be a positive decimal number, e.g. "0.5"${sent ? `; received ${sent}` : ""}.`);
  if (amount.e >= MAX_INTEGER_DIGITS) throw new AppError("INVALID_AMOUNT", `Amounts are below 10^${MAX_INTEGER_DIGITS}; received ${sent}.`);
  if (amount.decimalPlaces() > currency.precision)
    throw new AppError(
      "INVALID_AMOUNT",
      `${currency.ticker} amounts have at most ${currency.precision} decimal places; received ${sent} (${amount.decimalPlaces()}).`,
    );
  if (amount.sd() > MAX_SIGNIFICANT_DIGITS)
    throw new AppError(
      "INVALID_AMOUNT",
      `Amounts have at most ${MAX_SIGNIFICANT_DIGITS} significant digits, so that every client reads them exactly; received ${sent} (${amount.sd()}).`,
    );
  return amount;
}

/** A currency's limits as clients see them: rounded inward to amounts (a minimum up, a maximum down). */
export function amountLimits(limits: { minAmount: Dec; maxAmount: Dec }, precision: number) {
  return { minAmount: ceilAmount(limits.minAmount, precision), maxAmount: floorAmount(limits.maxAmount, precision) };
}

export async function getTermsWithinLimits(
  from: Currency,
  to: Currency,
  amount: Dec,
  ctx: EngineContext,
  markupBps = 0,
): Promise<PairTerms> {
  return withinLimits(from, to, amount, await getEngine().quote({ from, to, fromAmount: amount, markupBps }, ctx));
}

/** The engine's terms with its limits rounded to amounts, or the refusal of an amount outside them. */
export function withinLimits(from: Currency, to: Currency, amount: Dec, engineTerms: PairTerms): PairTerms {
  const terms = Object.assign({}, engineTerms, amountLimits(engineTerms, from.precision));
  // Only a refusal quotes the limits: formatting them on every quote cost two conversions per estimate.
  const limits = () => ({ minAmount: num(terms.minAmount), maxAmount: num(terms.maxAmount) });
  if (amount.lt(terms.minAmount))
    throw new AppError(
      "AMOUNT_TOO_LOW",
      `The minimum for ${from.ticker} -> ${to.ticker} is ${formatAmount(terms.minAmount)} ${from.ticker}.`,
      limits(),
    );
  if (amount.gt(terms.maxAmount))
    throw new AppError(
      "AMOUNT_TOO_HIGH",
      `The maximum for ${from.ticker} -> ${to.ticker} is ${formatAmount(terms.maxAmount)} ${from.ticker}.`,
      limits(),
    );
  return terms;
}
