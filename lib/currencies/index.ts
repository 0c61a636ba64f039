import "server-only";
// Currency registry: the only module the rest of the service imports for currencies.
// Pure and synchronous; the data is versioned JSON bundled with the code (nothing is
// fetched at run time). See data/SOURCES.md for where each field comes from.

import type { CurrencyRecord } from "./build";
import data from "./data/currencies.json";
import { type ExtraIdValidator, generateExtraId, getExtraIdValidator } from "./extra-id";
import { type AddressFamily, FAMILY_MAP } from "./families/index";
import { defaultRandom, type Random, tryDecode } from "./families/util";
import type { Currency, GeneratedAddress } from "./types";

export type { Currency, GeneratedAddress } from "./types";

interface Entry {
  currency: Currency;
  family: AddressFamily;
  extraIdFormat: string | null;
  extraId: ExtraIdValidator | undefined;
  priceSource: string;
}

const records = data as CurrencyRecord[];
const byTicker = new Map<string, Entry>();
const byObject = new WeakMap<Currency, Entry>();
const currencies: Currency[] = [];

for (const r of records) {
  const family = FAMILY_MAP.get(r.family);
  if (!family) throw new Error(`currency ${r.ticker}: unknown address family ${r.family}`);
  const currency: Currency = Object.freeze({
    ticker: r.ticker,
    symbol: r.symbol,
    name: r.name,
    network: r.network,
    kind: r.kind,
    decimals: r.decimals,
    precision: r.precision,
    hasExtraId: r.hasExtraId,
    extraIdName: r.extraIdName,
    isAvailable: r.isAvailable,
    family: r.family,
    validationLevel: family.level,
    priceUsd: r.priceUsd,
    priceDate: r.priceDate,
    minAmount: r.minAmount,
    maxAmount: r.maxAmount,
  });
  const extraId = r.hasExtraId ? getExtraIdValidator(r.extraIdFormat) : undefined;
  if (r.hasExtraId && !extraId) throw new Error(`currency ${r.ticker}: no extra-ID validator for ${r.extraIdFormat}`);
  const entry: Entry = { currency, family, extraIdFormat: r.hasExtraId ? r.extraIdFormat : null, extraId, priceSource: r.priceSource };
  if (byTicker.has(r.ticker)) throw new Error(`duplicate ticker ${r.ticker}`);
  byTicker.set(r.ticker, entry);
  byObject.set(currency, entry);
  currencies.push(currency);
}
Object.freeze(currencies);

function entryOf(currency: Currency): Entry | undefined {
  return (
    byObject.get(currency) ?? (currency && typeof currency.ticker === "string" ? byTicker.get(currency.ticker.toLowerCase()) : undefined)
  );
}

/** All currencies in registry order (stable). Frozen objects. */
export function listCurrencies(): readonly Currency[] {
  return currencies;
}

/** Case-insensitive lookup; the returned ticker is lower-case. */
export function getCurrency(ticker: string): Currency | undefined {
  if (typeof ticker !== "string") return undefined;
  return byTicker.get(ticker.toLowerCase())?.currency;
}

/** True when `address` is a valid mainnet address for the currency's network. Never throws. */
export function validateAddress(currency: Currency, address: string): boolean {
  const e = entryOf(currency);
  if (!e || typeof address !== "string") return false;
  try {
    return e.family.validate(address);
  } catch {
    return false;
  }
}

/**
 * For an address `validateAddress` rejects: a sentence that says why, when the family knows
 * something more useful than "not valid" (e.g. an Ethereum address pasted for a Starknet
 * currency). Null for valid addresses and for plain rejections. Never throws.
 */
export function addressRejectionReason(currency: Currency, address: string): string | null {
  const e = entryOf(currency);
  if (!e?.family.rejectionReason || typeof address !== "string" || validateAddress(currency, address)) return null;
  return tryDecode(() => e.family.rejectionReason!(address));
}

/** True when `extraId` is a valid extra ID for the currency; false for every value when hasExtraId is false. */
export function validateExtraId(currency: Currency, extraId: string): boolean {
  const e = entryOf(currency);
  if (!e?.extraId || typeof extraId !== "string") return false;
  return e.extraId(extraId);
}

/** A random valid address (and extra ID for hasExtraId currencies) of the currency's family. */
export function generateAddress(currency: Currency, random: Random = defaultRandom): GeneratedAddress {
  const e = entryOf(currency);
  if (!e) throw new Error(`unknown currency ${currency?.ticker}`);
  const address = e.family.generate(random);
  const extraId = e.extraIdFormat ? generateExtraId(e.extraIdFormat, random) : null;
  return { address, extraId };
}

/** Provenance and internals for reports/tests: extra-ID format key and price source id. */
export function getCurrencyMeta(currency: Currency): { extraIdFormat: string | null; priceSource: string; accepts: string } | undefined {
  const e = entryOf(currency);
  return e && { extraIdFormat: e.extraIdFormat, priceSource: e.priceSource, accepts: e.family.accepts };
}

export interface FamilyInfo {
  key: string;
  level: AddressFamily["level"];
  accepts: string;
  /** tickers of the currencies using this family, registry order */
  tickers: string[];
}

/** Address families known to the registry (including ones no listed currency uses yet). */
export const FAMILIES: ReadonlyMap<string, FamilyInfo> = (() => {
  const m = new Map<string, FamilyInfo>();
  for (const f of FAMILY_MAP.values()) m.set(f.key, { key: f.key, level: f.level, accepts: f.accepts, tickers: [] });
  for (const c of currencies) m.get(c.family)!.tickers.push(c.ticker);
  return m;
})();
