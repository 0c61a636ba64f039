import "server-only";
import { isLosslessNumber } from "lossless-json";
import type { Currency } from "@/lib/currencies/types";
import type { QuoteMath } from "@/lib/domain/quote-math";
import type { PairTerms } from "@/lib/engine";
import type { Dec } from "@/lib/money/decimal";

/** A priced amount: what an estimate or an order is built from. */
export interface Priced {
  fromAmount: Dec;
  terms: PairTerms;
  q: QuoteMath;
}

/**
 * The prices of the last questions asked more than once (a question: a pair, an amount as the
 * client wrote it, and a markup). A widget or an app asks the same estimate again every few
 * seconds, and pricing it (the amount's parse, the limits' rounding, the markup maths) was most
 * of an estimate's own CPU. An entry answers only while the engine gives the very terms it was computed from: the
 * engine is asked on every request (its fault switch, market moves and provider quotes all
 * apply), and a different rate, fee or limit prices the amount again. Only successes are
 * kept: a refusal is computed every time. Decimals are immutable, and the entry is frozen.
 */
export const PRICE_MEMO_ENTRIES = 10_000;
/** Longer texts are valid only with padding (parseAmount trims); they are priced, not kept. */
const MAX_KEY_TEXT = 48;

interface Entry {
  /** The registry's objects the entry was priced for (a key names them by ticker only). */
  from: Currency;
  to: Currency;
  fromAmount: Dec;
  engineTerms: PairTerms;
  priced: Priced;
}

const entries = new Map<string, Entry>();

/** The memo's key for an amount as received, or null when it is not one worth keeping. */
export function priceMemoKey(from: Currency, to: Currency, amount: unknown, markupBps: number): string | null {
  const text = typeof amount === "string" ? amount : isLosslessNumber(amount) ? `#${amount.value}` : null;
  if (text === null || text.length > MAX_KEY_TEXT) return null;
  return `${from.ticker}>${to.ticker}|${markupBps}|${text}`;
}

/**
 * Questions asked once and not yet kept: a price is kept only when its question comes again.
 * Keeping every one cost a one-off question three times its price (measured: 56 µs of CPU
 * against 17 in one process, with a new amount each call), its objects promoted to the old
 * generation only to be dropped there; a key's text alone is cheap to hold and to forget.
 * Cleared when full.
 */
const askedOnce = new Set<string>();

/** Whether `key` was asked before (and is now worth keeping); else notes it for next time. */
export function askedBefore(key: string): boolean {
  if (askedOnce.delete(key)) return true;
  if (askedOnce.size >= PRICE_MEMO_ENTRIES) askedOnce.clear();
  askedOnce.add(key);
  return false;
}

/** The amount a key's earlier success parsed, so that the engine is asked with it before anything is parsed again. */
export function rememberedAmount(key: string, from: Currency): Dec | undefined {
  const e = entries.get(key);
  return e?.from === from ? e.fromAmount : undefined;
}

const same = (a: Dec, b: Dec) => a === b || a.eq(b);

/** The prices kept for `key`, if the engine's terms are still the ones they were computed from. */
export function recallPrice(key: string, from: Currency, to: Currency, engineTerms: PairTerms): Priced | undefined {
  const e = entries.get(key);
  if (e?.from !== from || e.to !== to) return undefined;
  const t = e.engineTerms;
  if (
    t.platformFeeBps === engineTerms.platformFeeBps &&
    same(t.rate, engineTerms.rate) &&
    same(t.minAmount, engineTerms.minAmount) &&
    same(t.maxAmount, engineTerms.maxAmount)
  )
    return e.priced;
  return undefined;
}

/** Keeps a success; the oldest entry goes first once the memo is full. */
export function keepPrice(key: string, from: Currency, to: Currency, engineTerms: PairTerms, priced: Priced): Priced {
  const frozen = Object.freeze({ fromAmount: priced.fromAmount, terms: Object.freeze(priced.terms), q: Object.freeze(priced.q) });
  entries.delete(key);
  if (entries.size >= PRICE_MEMO_ENTRIES) entries.delete(entries.keys().next().value as string);
  entries.set(key, { from, to, fromAmount: frozen.fromAmount, engineTerms: Object.freeze({ ...engineTerms }), priced: frozen });
  return frozen;
}

/** How many entries are kept (tests read it to check the bound). */
export const priceMemoSize = () => entries.size;
