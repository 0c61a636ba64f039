import "server-only";
import { getDb } from "@/lib/db/client";
import type { RateType } from "@/lib/domain/order-states";
import { AppError } from "@/lib/errors";
import { bpsToPercent } from "@/lib/money/decimal";
import { num, stringifyJson } from "@/lib/money/json-number";
import { type Estimate, getEstimate, type Priced } from "@/lib/quotes/get-estimate";
import { RawJson } from "../respond";
import { parseWith, type RouteHandler } from "../route";
import { estimateExtensions, estimateQuery, reverseEstimateQuery } from "../schemas";

/** Reads a query parameter by the spec's name or the short one of its authentication example; not a mix that disagrees. */
export const pickQuery = (query: URLSearchParams) => (long: string, short: string) => {
  const a = query.get(long);
  const b = query.get(short);
  if (a !== null && b !== null && a !== b)
    throw new AppError("INVALID_REQUEST", `Give either ${long} or ${short}, not two different values.`, { field: long });
  return a ?? b ?? undefined;
};

/** The spec's query, or (an extension) toAmount instead of fromAmount: a reverse quote. Either with rateType. */
function readQuery(query: URLSearchParams): {
  fromCurrency: string;
  toCurrency: string;
  fromAmount?: string;
  toAmount?: string;
  rateType: RateType;
} {
  const pick = pickQuery(query);
  const fromAmount = pick("fromAmount", "amount");
  const toAmount = query.get("toAmount");
  const common = { fromCurrency: pick("fromCurrency", "from"), toCurrency: pick("toCurrency", "to") };
  const { rateType } = parseWith(estimateExtensions, { rateType: query.get("rateType") ?? undefined });
  // Assigned, not spread: this runs on every estimate, and V8 builds a spread property by property.
  if (toAmount !== null && fromAmount === undefined)
    return Object.assign(parseWith(reverseEstimateQuery, Object.assign(common, { toAmount })), { rateType });
  if (toAmount !== null) throw new AppError("INVALID_REQUEST", "Give either fromAmount or toAmount, not both.", { field: "toAmount" });
  return Object.assign(parseWith(estimateQuery, Object.assign(common, { fromAmount })), { rateType });
}

/** An estimate's JSON around its validUntil, per kept price (see Estimate.priced): the rest of the body is fixed by it. */
interface BodyAround {
  from: string;
  to: string;
  feeBps: number;
  head: string;
  tail: string;
}
const bodies = new WeakMap<Priced, BodyAround>();
const VALID_UNTIL = '"validUntil":"';

function estimateBody(e: Estimate): Record<string, unknown> {
  const body: Record<string, unknown> = {
    fromCurrency: e.from.ticker,
    toCurrency: e.to.ticker,
    fromAmount: num(e.fromAmount),
    toAmount: num(e.toAmount),
    rate: num(e.rate),
    fee: bpsToPercent(e.feeBps),
    validUntil: e.validUntil.toISOString(),
    minAmount: num(e.minAmount),
    maxAmount: num(e.maxAmount),
    rateType: e.rateType,
  };
  // Set, not spread into the literal: V8 copies a spread property by property, on every estimate.
  if (e.rateId) body.rateId = e.rateId;
  return body;
}

/**
 * A floating estimate's body from the text kept for its price, with this request's
 * validUntil: the same JSON, key order included, without formatting five amounts and
 * serialising the object again (together half of the handler's CPU on a repeated estimate).
 */
function floatingBody(e: Estimate): RawJson | Record<string, unknown> {
  if (e.rateId !== null || !Object.isFrozen(e.priced)) return estimateBody(e);
  let around = bodies.get(e.priced);
  if (around?.from !== e.from.ticker || around.to !== e.to.ticker || around.feeBps !== e.feeBps) {
    const text = stringifyJson(Object.assign(estimateBody(e), { validUntil: "" }));
    const at = text.indexOf(VALID_UNTIL) + VALID_UNTIL.length;
    around = { from: e.from.ticker, to: e.to.ticker, feeBps: e.feeBps, head: text.slice(0, at), tail: text.slice(at) };
    bodies.set(e.priced, around);
  }
  return new RawJson(around.head + e.validUntil.toISOString() + around.tail);
}

export const getEstimateHandler: RouteHandler = async ({ req, env, caller, scope }) => {
  const q = readQuery(req.query);
  const e = await getEstimate({
    from: q.fromCurrency,
    to: q.toCurrency,
    amount: q.fromAmount,
    toAmount: q.toAmount,
    rateType: q.rateType,
    markupBps: caller?.markupBps ?? 0,
    ctx: { scope, clientIp: env.ip },
    db: getDb(),
    resellerId: caller?.resellerId ?? null,
  });
  return { body: floatingBody(e) };
};
