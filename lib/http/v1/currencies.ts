import "server-only";
import { listCurrencies } from "@/lib/currencies";
import type { Currency } from "@/lib/currencies/types";
import { type CurrencyAvailability, getEngine } from "@/lib/engine";
import { D } from "@/lib/money/decimal";
import { num, stringifyJson } from "@/lib/money/json-number";
import { amountLimits } from "@/lib/quotes/pricing";
import { etagOf } from "../etag";
import { RawJson } from "../respond";
import type { RouteHandler } from "../route";

// The registry is static for the life of the process; with an upstream engine, availability
// and limits follow what the enabled providers offer now (docs/providers.md section 4). The
// body is serialised once per state of both, and conditional requests answered with 304.

/** The limits /estimate and /exchange apply, as amounts (docs/api.md, Amounts); with providers, their stated range. */
function limitsOf(c: Currency, live: CurrencyAvailability | null) {
  const stated = live?.limits(c.ticker) ?? null;
  const l = amountLimits({ minAmount: stated?.min ?? new D(c.minAmount), maxAmount: stated?.max ?? new D(c.maxAmount) }, c.precision);
  return { minAmount: num(l.minAmount), maxAmount: num(l.maxAmount) };
}
/** The body per engine (so per app), remade when the engine's availability moves to another version. */
const bodies = new WeakMap<object, { body: RawJson; etag: string; version: number | null }>();

function currenciesBody() {
  const engine = getEngine();
  const live = engine.availability?.() ?? null;
  const version = live ? live.version : null;
  let cached = bodies.get(engine);
  if (!cached || cached.version !== version) {
    const body = stringifyJson({
      currencies: listCurrencies().map((c) => ({
        ticker: c.ticker,
        name: c.name,
        network: c.network,
        hasExtraId: c.hasExtraId,
        isAvailable: c.isAvailable && (live ? live.offers(c.ticker) : true),
        symbol: c.symbol,
        extraIdName: c.extraIdName,
        precision: c.precision,
        ...limitsOf(c, live),
      })),
    });
    cached = { body: new RawJson(body), etag: etagOf(body), version };
    bodies.set(engine, cached);
  }
  return cached;
}

export const getCurrencies: RouteHandler = async ({ req }) => {
  const { body, etag } = currenciesBody();
  const headers = { ETag: etag, "Cache-Control": "public, max-age=60" };
  if (req.header("if-none-match") === etag) return { status: 304, body: null, headers };
  return { body, headers };
};
