import "server-only";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { createOrder } from "@/lib/orders/create-order";
import { getOrderForCaller } from "@/lib/orders/get-order";
import { serializeCreatedOrder, serializeOrderStatus } from "@/lib/orders/serialize-order";
import { readJsonBody } from "../respond";
import { apiRoute, parseWith } from "../route";
import { createExchangeBody } from "../schemas";

const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

export const postExchange = apiRoute(
  async ({ req, env, caller, scope }) => {
    const idem = req.headers.get("idempotency-key");
    if (idem !== null && !IDEMPOTENCY_KEY_RE.test(idem))
      throw new AppError("INVALID_IDEMPOTENCY_KEY", "Idempotency-Key must be 1 to 255 visible ASCII characters.");
    const input = parseWith(createExchangeBody, await readJsonBody(req, getConfig().MAX_BODY_BYTES));
    const { order, replayed } = await createOrder(getDb(), { input, caller, ctx: { scope, clientIp: env.ip }, idempotencyKey: idem });
    return {
      status: 201,
      body: serializeCreatedOrder(order),
      headers: { Location: `./exchange/${order.id}`, ...(replayed ? { "Idempotent-Replayed": "true" } : {}) },
      created: !replayed,
    };
  },
  { creation: true },
);

export const getExchange = apiRoute(async ({ env, caller }) => {
  const order = await getOrderForCaller(getDb(), { orderId: env.params.id ?? "", caller });
  return { body: serializeOrderStatus(order, order.events) };
});
