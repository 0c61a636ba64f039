// Pure derivation of the registry data (currencies.json) from the source inputs in data/.
// Used by build-data.ts (writes the file) and by the tests (checks the file matches).
import { getFamily } from "./families/index";
import { computeLimits, defaultPrecision, type LimitOverride } from "./limits";
import type { Currency } from "./types";

/** One hand-kept entry of data/currencies.source.json: the Currency fields that are facts, plus inputs. */
export interface SourceEntry
  extends Pick<
    Currency,
    "ticker" | "symbol" | "name" | "network" | "kind" | "decimals" | "family" | "hasExtraId" | "extraIdName" | "isAvailable"
  > {
  /** Optional explicit precision; default min(decimals, 8). */
  precision?: number;
  extraIdFormat: string | null;
  priceKey: string;
  limits?: LimitOverride;
  note: string | null;
}

export interface PriceSnapshot {
  prices: Record<string, { usd: string; source: string; date: string }>;
  sources: Array<{ id: string; url: string | null; date: string | null }>;
}

/** What currencies.json holds per currency: the contract fields plus provenance. */
export interface CurrencyRecord extends Currency {
  extraIdFormat: string | null;
  priceSource: string;
}

export function buildRecords(source: SourceEntry[], snapshot: PriceSnapshot): CurrencyRecord[] {
  return source.map((s) => {
    const fam = getFamily(s.family);
    if (!fam) throw new Error(`${s.ticker}: unknown family ${s.family}`);
    const p = snapshot.prices[s.priceKey];
    if (!p) throw new Error(`${s.ticker}: no price for ${s.priceKey}`);
    const precision = s.precision ?? defaultPrecision(s.decimals);
    if (precision > s.decimals) throw new Error(`${s.ticker}: precision > decimals`);
    const { minAmount, maxAmount } = computeLimits(p.usd, precision, s.limits);
    return {
      ticker: s.ticker.toLowerCase(),
      symbol: s.symbol,
      name: s.name,
      network: s.network,
      kind: s.kind,
      decimals: s.decimals,
      precision,
      hasExtraId: s.hasExtraId,
      extraIdName: s.hasExtraId ? s.extraIdName : null,
      isAvailable: s.isAvailable,
      family: s.family,
      validationLevel: fam.level,
      priceUsd: p.usd,
      priceDate: p.date,
      minAmount,
      maxAmount,
      extraIdFormat: s.hasExtraId ? s.extraIdFormat : null,
      priceSource: p.source,
    };
  });
}
