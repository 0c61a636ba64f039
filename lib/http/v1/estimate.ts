import "server-only";
import { AppError } from "@/lib/errors";
import { bpsToPercent } from "@/lib/money/decimal";
import { num } from "@/lib/money/json-number";
import { getEstimate } from "@/lib/quotes/get-estimate";
import { apiRoute, parseWith } from "../route";
import { estimateQuery } from "../schemas";

/** Reads a query parameter by the spec's name or the short one of its authentication example; not a mix that disagrees. */
export const pickQuery = (url: URL) => (long: string, short: string) => {
  const a = url.searchParams.get(long);
  const b = url.searchParams.get(short);
  if (a !== null && b !== null && a !== b)
    throw new AppError("INVALID_REQUEST", `Give either ${long} or ${short}, not two different values.`, { field: long });
  return a ?? b ?? undefined;
};

function readQuery(url: URL) {
  const pick = pickQuery(url);
  return parseWith(estimateQuery, {
    fromCurrency: pick("fromCurrency", "from"),
    toCurrency: pick("toCurrency", "to"),
    fromAmount: pick("fromAmount", "amount"),
  });
}

export const getEstimateHandler = apiRoute(async ({ req, env, caller, scope }) => {
  const q = readQuery(new URL(req.url));
  const e = await getEstimate({
    from: q.fromCurrency,
    to: q.toCurrency,
    amount: q.fromAmount,
    markupBps: caller?.markupBps ?? 0,
    ctx: { scope, clientIp: env.ip },
  });
  return {
    body: {
      fromCurrency: e.from.ticker,
      toCurrency: e.to.ticker,
      fromAmount: num(e.fromAmount),
      toAmount: num(e.toAmount),
      rate: num(e.rate),
      fee: bpsToPercent(e.feeBps),
      validUntil: e.validUntil.toISOString(),
      minAmount: num(e.minAmount),
      maxAmount: num(e.maxAmount),
    },
  };
});
