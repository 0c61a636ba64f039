import "server-only";
import crypto from "node:crypto";
import { listCurrencies } from "@/lib/currencies";
import { num, stringifyJson } from "@/lib/money/json-number";
import { RawJson } from "../respond";
import { apiRoute } from "../route";

// The registry is static for the life of the process: serialise it once, and answer
// conditional requests with 304.
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
        minAmount: num(c.minAmount),
        maxAmount: num(c.maxAmount),
      })),
    });
    cached = { body: new RawJson(body), etag: `"${crypto.createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
  }
  return cached;
}

export const getCurrencies = apiRoute(async ({ req }) => {
  const { body, etag } = currenciesBody();
  const headers = { ETag: etag, "Cache-Control": "public, max-age=60" };
  if (req.headers.get("if-none-match") === etag) return { status: 304, body: null, headers };
  return { body, headers };
});
