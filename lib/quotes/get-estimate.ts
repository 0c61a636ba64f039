import "server-only";
import { getConfig } from "@/lib/config";
import type { Currency } from "@/lib/currencies/types";
import type { Db, RateQuote } from "@/lib/db/client";
import type { RateType } from "@/lib/domain/order-states";
import { applyRate, effectiveRate, fromAmountFor } from "@/lib/domain/quote-math";
import { type EngineContext, getEngine, type PairTerms } from "@/lib/engine";
import { AppError } from "@/lib/errors";
import { pooledRandomBytes } from "@/lib/ids";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";
import { askedBefore, keepPrice, type Priced, priceMemoKey, recallPrice, rememberedAmount } from "./price-memo";
import { getTermsWithinLimits, parseAmount, resolvePair, withinLimits } from "./pricing";

export interface Estimate {
  from: Currency;
  to: Currency;
  fromAmount: Dec;
  toAmount: Dec;
  rate: Dec;
  /** Platform fee plus the caller's markup, in basis points. */
  feeBps: number;
  validUntil: Date;
  minAmount: Dec;
  maxAmount: Dec;
  rateType: RateType;
  /** Fixed rate: the id POST /exchange takes (with rateType fixed) to get exactly these terms. */
  rateId: string | null;
  /**
   * The prices everything but validUntil and rateId comes from: the same (frozen) object for
   * the same question while the engine's terms hold (lib/quotes/price-memo.ts), so that a
   * caller may keep what it derives from one per object.
   */
  priced: Priced;
}

export type { Priced };

/** Each kept price's effective rate, computed once (a 64-digit division and a rounding). */
const effectiveRates = new WeakMap<Priced, Dec>();
function effectiveRateOf(p: Priced): Dec {
  let rate = effectiveRates.get(p);
  if (rate === undefined) {
    rate = effectiveRate(p.fromAmount, p.q.toAmount);
    if (Object.isFrozen(p)) effectiveRates.set(p, rate);
  }
  return rate;
}

/** What `fromAmount` pays out at `terms` (already checked against the pair's limits). */
const pricedAt = (to: Currency, fromAmount: Dec, terms: PairTerms, markupBps: number): Priced => ({
  fromAmount,
  terms,
  q: applyRate(fromAmount, terms.rate, to.precision, markupBps),
});

/** What `fromAmount` of `from` pays out now, within the pair's limits. */
export async function priceByFromAmount(
  from: Currency,
  to: Currency,
  fromAmount: Dec,
  ctx: EngineContext,
  markupBps: number,
): Promise<Priced> {
  return pricedAt(to, fromAmount, await getTermsWithinLimits(from, to, fromAmount, ctx, markupBps), markupBps);
}

/**
 * A reverse quote: the smallest fromAmount (rounded up to the source's precision) that pays
 * the user at least `target`, within the pair's limits. An engine that quotes per amount is
 * asked again at the amount found; should that rate give less, the amount is found again.
 */
export async function priceByToAmount(from: Currency, to: Currency, target: Dec, ctx: EngineContext, markupBps: number): Promise<Priced> {
  let rate = (await getEngine().quote({ from, to, fromAmount: null, markupBps }, ctx)).rate;
  for (let i = 0; i < 3; i++) {
    const p = await priceByFromAmount(from, to, fromAmountFor(target, rate, from.precision, to.precision, markupBps), ctx, markupBps);
    if (p.q.toAmount.gte(target)) return p;
    rate = p.terms.rate;
  }
  throw new AppError("ENGINE_UNAVAILABLE", "The rate kept moving while this quote was computed; try again.");
}

/**
 * What the amount a client sent pays out now: priceByFromAmount, with the answer kept per
 * question for as long as the engine gives the same terms (lib/quotes/price-memo.ts).
 */
async function priceSentAmount(from: Currency, to: Currency, sent: unknown, ctx: EngineContext, markupBps: number): Promise<Priced> {
  const key = priceMemoKey(from, to, sent, markupBps);
  const amount = (key !== null ? rememberedAmount(key, from) : undefined) ?? parseAmount(sent, from);
  const engineTerms = await getEngine().quote({ from, to, fromAmount: amount, markupBps }, ctx);
  const kept = key !== null ? recallPrice(key, from, to, engineTerms) : undefined;
  if (kept) return kept;
  const priced = pricedAt(to, amount, withinLimits(from, to, amount, engineTerms), markupBps);
  return key !== null && askedBefore(key) ? keepPrice(key, from, to, engineTerms, priced) : priced;
}

/** The amount given: exactly one of fromAmount (source currency) and toAmount (destination currency). */
export async function priceRequest(
  from: Currency,
  to: Currency,
  amounts: { fromAmount?: unknown; toAmount?: unknown },
  ctx: EngineContext,
  markupBps: number,
): Promise<Priced> {
  if (amounts.toAmount != null) return priceByToAmount(from, to, parseAmount(amounts.toAmount, to), ctx, markupBps);
  return priceSentAmount(from, to, amounts.fromAmount, ctx, markupBps);
}

const newRateId = () => `rate_${pooledRandomBytes(12).toString("hex")}`;

/** What an order created now would pay out, markup included; with rateType fixed, a rateId that locks it. */
export async function getEstimate(opts: {
  from: unknown;
  to: unknown;
  amount?: unknown;
  toAmount?: unknown;
  rateType?: RateType;
  markupBps: number;
  ctx: EngineContext;
  /** Fixed rate: where the quote is kept, and whose it is. */
  db?: Db;
  resellerId?: string | null;
  now?: Date;
}): Promise<Estimate> {
  const { from, to } = resolvePair(opts.from, opts.to);
  const p = await priceRequest(from, to, { fromAmount: opts.amount, toAmount: opts.toAmount }, opts.ctx, opts.markupBps);
  const now = opts.now ?? new Date();
  const validUntil = new Date(now.getTime() + getConfig().QUOTE_TTL_SECONDS * 1000);
  const rateType = opts.rateType ?? "floating";
  let rateId: string | null = null;
  if (rateType === "fixed") {
    if (!opts.db) throw new Error("a fixed-rate estimate needs the database");
    rateId = newRateId();
    await opts.db.rateQuote.create({
      data: {
        id: rateId,
        resellerId: opts.resellerId ?? null,
        fromCurrency: from.ticker,
        toCurrency: to.ticker,
        fromAmount: formatAmount(p.fromAmount),
        rate: p.terms.rate.toFixed(),
        rawToAmount: formatAmount(p.q.rawToAmount),
        toAmount: formatAmount(p.q.toAmount),
        profit: formatAmount(p.q.profit),
        platformFeeBps: p.terms.platformFeeBps,
        markupBps: opts.markupBps,
        validUntil,
        createdAt: now,
      },
    });
  }
  return {
    from,
    to,
    fromAmount: p.fromAmount,
    toAmount: p.q.toAmount,
    rate: effectiveRateOf(p),
    feeBps: p.terms.platformFeeBps + opts.markupBps,
    validUntil,
    minAmount: p.terms.minAmount,
    maxAmount: p.terms.maxAmount,
    rateType,
    rateId,
    priced: p,
  };
}

/**
 * The fixed-rate quote a POST /exchange names: the caller's own, for the same pair and
 * amount, and still valid. Its terms are the order's.
 */
export async function takeRateQuote(
  db: Db,
  opts: { rateId: string; resellerId: string | null; from: Currency; to: Currency; fromAmount?: unknown; toAmount?: unknown; now: Date },
): Promise<{ quote: RateQuote; priced: Priced }> {
  const quote = /^rate_[0-9a-f]{24}$/.test(opts.rateId) ? await db.rateQuote.findUnique({ where: { id: opts.rateId } }) : null;
  const invalid = (why: string) => new AppError("INVALID_RATE_ID", `This rateId ${why}; get a fixed-rate estimate for this order first.`);
  if (!quote || quote.resellerId !== opts.resellerId) throw invalid("is unknown");
  if (quote.fromCurrency !== opts.from.ticker || quote.toCurrency !== opts.to.ticker) throw invalid("is for another pair");
  const rate = new D(quote.rate);
  const fromAmount = new D(quote.fromAmount);
  if (opts.toAmount != null) {
    const target = parseAmount(opts.toAmount, opts.to);
    if (!fromAmountFor(target, rate, opts.from.precision, opts.to.precision, quote.markupBps).eq(fromAmount))
      throw invalid("is for another toAmount");
  } else if (!parseAmount(opts.fromAmount, opts.from).eq(fromAmount)) throw invalid("is for another amount");
  if (quote.validUntil <= opts.now)
    throw new AppError("RATE_EXPIRED", `This fixed rate expired at ${quote.validUntil.toISOString()}; get a new estimate.`, {
      validUntil: quote.validUntil.toISOString(),
    });
  const q = { rate, rawToAmount: new D(quote.rawToAmount), toAmount: new D(quote.toAmount), profit: new D(quote.profit) };
  const terms: PairTerms = { rate, platformFeeBps: quote.platformFeeBps, minAmount: fromAmount, maxAmount: fromAmount };
  return { quote, priced: { fromAmount, terms, q } };
}
