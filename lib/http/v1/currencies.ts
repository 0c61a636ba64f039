import "server-only";
import crypto from "node:crypto";
import { listCurrencies } from "@/lib/currencies";
import type { Currency } from "@/lib/currencies/types";
import { D } from "@/lib/money/decimal";
import { num, stringifyJson } from "@/lib/money/json-number";
import { amountLimits } from "@/lib/quotes/pricing";
import { RawJson } from "../respond";
import { apiRoute } from "../route";

// The registry is static for the life of the process: serialise it once, and answer
// conditional requests with 304.

/** The limits /estimate and /exchange apply, as amounts (docs/api.md, Amounts). */
function limitsOf(c: Currency) {
  const l = amountLimits({ minAmount: new D(c.minAmount), maxAmount: new D(c.maxAmount) }, c.precision);
  return { minAmount: num(l.minAmount), maxAmount: num(l.maxAmount) };
}
let cached: { body: RawJson; etag: string } | null = null;

function currenciesBody() {
  if (!cached) {
    const body = stringifyJson({
      currencies: listCurrencies().map((c) => ({
        ticker: c.ticker,
        name: c.name,
        network: c.network,
        hasExtraId: c.hasExtraId,
        isAvailable: c.isAvailable,
        symbol: c.symbol,
        extraIdName: c.extraIdName,
        precision: c.precision,
        ...limitsOf(c),
      })),
    });
    cached = { body: new RawJson(body), etag: `"${crypto.createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
  }
  return cached;
}

export const getCurrencies = apiRoute(async ({ req }) => {
  const { body, etag } = currenciesBody();
  const headers = { ETag: etag, "Cache-Control": "public, max-age=60" };
  if (req.header("if-none-match") === etag) return { status: 304, body: null, headers };
  return { body, headers };
});
