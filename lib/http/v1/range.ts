import "server-only";
import { num } from "@/lib/money/json-number";
import { getRange } from "@/lib/quotes/range";
import { parseWith, type RouteHandler } from "../route";
import { rangeQuery } from "../schemas";
import { pickQuery } from "./estimate";

/** GET /range: the pair's minAmount and maxAmount, the numbers AMOUNT_TOO_LOW / AMOUNT_TOO_HIGH carry. */
export const getRangeHandler: RouteHandler = async ({ req, env, caller, scope }) => {
  const pick = pickQuery(req.query);
  const q = parseWith(rangeQuery, {
    fromCurrency: pick("fromCurrency", "from"),
    toCurrency: pick("toCurrency", "to"),
    rateType: req.query.get("rateType") ?? undefined,
  });
  const r = await getRange({ from: q.fromCurrency, to: q.toCurrency, markupBps: caller?.markupBps ?? 0, ctx: { scope, clientIp: env.ip } });
  return {
    body: {
      fromCurrency: r.from.ticker,
      toCurrency: r.to.ticker,
      rateType: q.rateType,
      minAmount: num(r.minAmount),
      maxAmount: num(r.maxAmount),
    },
  };
};
