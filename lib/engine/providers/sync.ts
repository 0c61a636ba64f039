import "server-only";
import { listCurrencies } from "@/lib/currencies";
import type { ProviderMapping } from "@/lib/providers/mapping";
import type { ProviderAdapter, ProviderAsset } from "@/lib/providers/types";

// Marks which mapped currencies a provider offers now, from its live currency list. The
// engine runs it per process (at start and every PROVIDERS_SYNC_SECONDS); the operator runs
// it as `npm run cli -- providers:sync`, which also prints what the mapping file should gain.

export interface SyncReport {
  provider: string;
  mappingVersion: number;
  /** Registry tickers whose mapped asset the provider offers now. */
  offered: string[];
  /** Mapped tickers the provider lists but has switched off (deposits or payouts offline). */
  suspended: string[];
  /** Mapped tickers whose asset the provider does not list at all (a wrong or retired id). */
  unknown: string[];
  /** Registry currencies without a mapping entry, with the provider's assets of the same symbol. */
  candidates: { ticker: string; assets: ProviderAsset[] }[];
}

const symbolOf = (a: ProviderAsset) => (a.ticker ?? a.coin ?? a.code ?? "").toLowerCase();

export async function syncProvider(adapter: ProviderAdapter, mapping: ProviderMapping, signal?: AbortSignal): Promise<SyncReport> {
  const upstream = await adapter.listCurrencies(signal);
  const byKey = new Map(upstream.map((u) => [adapter.assetKey(u.asset), u]));
  const report: SyncReport = {
    provider: adapter.name,
    mappingVersion: mapping.version,
    offered: [],
    suspended: [],
    unknown: [],
    candidates: [],
  };
  for (const [ticker, asset] of mapping.assets) {
    const u = byKey.get(adapter.assetKey(asset));
    if (!u) report.unknown.push(ticker);
    else if (u.available) report.offered.push(ticker);
    else report.suspended.push(ticker);
  }
  for (const c of listCurrencies()) {
    if (mapping.assets.has(c.ticker)) continue;
    const sym = c.symbol.toLowerCase();
    const assets = upstream.filter((u) => u.available && symbolOf(u.asset).startsWith(sym)).map((u) => u.asset);
    if (assets.length) report.candidates.push({ ticker: c.ticker, assets });
  }
  return report;
}
