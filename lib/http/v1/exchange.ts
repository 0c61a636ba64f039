import "server-only";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { stringifyJson } from "@/lib/money/json-number";
import { createOrder } from "@/lib/orders/create-order";
import { getOrderForCaller } from "@/lib/orders/get-order";
import { pollAfterSeconds } from "@/lib/orders/poll-hint";
import { serializeCreatedOrder, serializeOrderStatus } from "@/lib/orders/serialize-order";
import { setRefundAddress } from "@/lib/orders/set-refund-address";
import { etagOf, noneMatchHits } from "../etag";
import { RawJson, readJsonBody } from "../respond";
import { parseWith, type RouteHandler } from "../route";
import { createExchangeBody, createExchangeByToAmountBody, refundAddressBody } from "../schemas";

const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** Creates an order (the route table marks it a creation: a keyless caller's daily orders count it). */
export const postExchange: RouteHandler = async ({ req, env, caller, scope }) => {
  const idem = req.header("idempotency-key");
  if (idem !== null && !IDEMPOTENCY_KEY_RE.test(idem))
    throw new AppError("INVALID_IDEMPOTENCY_KEY", "Idempotency-Key must be 1 to 255 visible ASCII characters.");
  const body = await readJsonBody(req, getConfig().MAX_BODY_BYTES);
  // An extension: toAmount instead of amount (a reverse, fixed-rate order); never both, as on /estimate.
  const given = (name: string) => typeof body === "object" && body !== null && (body as Record<string, unknown>)[name] != null;
  if (given("amount") && given("toAmount"))
    throw new AppError("INVALID_REQUEST", "Give either amount or toAmount, not both.", { field: "toAmount" });
  const byToAmount = given("toAmount");
  const input = byToAmount ? parseWith(createExchangeByToAmountBody, body) : parseWith(createExchangeBody, body);
  const { order, replayed } = await createOrder(getDb(), { input, caller, ctx: { scope, clientIp: env.ip }, idempotencyKey: idem });
  return {
    status: 201,
    body: serializeCreatedOrder(order),
    headers: { Location: `./exchange/${order.id}`, ...(replayed ? { "Idempotent-Replayed": "true" } : {}) },
    created: !replayed,
  };
};

/**
 * The order's status, with an ETag (If-None-Match answers 304 with no body while nothing
 * changed) and Poll-After: the seconds after which reading it again is worth it (absent once
 * the order is final).
 */
export const getExchange: RouteHandler = async ({ req, env, caller }) => {
  const order = await getOrderForCaller(getDb(), { orderId: env.params.id ?? "", caller });
  const text = stringifyJson(serializeOrderStatus(order, order.events));
  const etag = etagOf(text);
  const poll = pollAfterSeconds(order);
  const headers: Record<string, string> = { ETag: etag, "Cache-Control": "private, no-cache" };
  if (poll !== null) headers["Poll-After"] = String(poll);
  if (noneMatchHits(req.header("if-none-match"), etag)) return { status: 304, body: null, headers };
  return { body: new RawJson(text), headers };
};

/**
 * An extension: gives the order a refund address after creation (lib/orders/set-refund-address.ts),
 * for the key's reseller's orders only (another reseller's, or a keyless order: 404).
 */
export const postRefundAddress: RouteHandler = async ({ req, env, caller, scope }) => {
  if (!caller) throw new AppError("API_KEY_REQUIRED", "Giving a refund address needs the API key (X-API-Key) of the order's reseller.");
  const body = parseWith(refundAddressBody, await readJsonBody(req, getConfig().MAX_BODY_BYTES));
  const order = await setRefundAddress(getDb(), {
    orderId: env.params.id ?? "",
    auth: { resellerId: caller.resellerId },
    refundAddress: body.refundAddress,
    refundExtraId: body.refundExtraId,
    clientIp: env.ip,
    scope,
  });
  return { body: serializeOrderStatus(order, order.events) };
};
