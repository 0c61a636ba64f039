import "server-only";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import {
  checkAddress,
  createHostedOrder,
  getHostedOrder,
  hostedCurrencies,
  hostedEstimate,
  hostedOrderView,
  hostedSandboxDeposit,
  hostedStatusPath,
} from "@/lib/hosted/hosted";
import { stringifyJson } from "@/lib/money/json-number";
import { pollAfterSeconds } from "@/lib/orders/poll-hint";
import { setRefundAddress } from "@/lib/orders/set-refund-address";
import { etagOf, noneMatchHits } from "./etag";
import {
  type AddressCheck,
  type HostedCurrency,
  type HostedEstimate,
  hostedAddressQuery,
  hostedEstimateQuery,
  hostedOrderBody,
  hostedRefundAddressBody,
} from "./hosted-schemas";
import type { ApiRequest } from "./request";
import { RawJson, readJsonBody } from "./respond";
import { parseWith, type RouteHandler } from "./route";

// The handlers of the hosted page's and the widget's own JSON API, under /api/hosted
// (docs/widgets.md), routed by lib/http/app.ts's table like the v1 API's, with auth "page"
// (lib/http/route.ts): a request must come from the app's own origin, answers carry no CORS
// headers, and every request counts against the client IP's limits of the keyless tier
// (orders against its daily orders). No key or secret of the reseller is ever needed or
// shown: the page names its reseller or widget by public id, and the order's status needs
// the link's own secret. Requests and responses: lib/http/hosted-schemas.ts.

const queryOf = (req: ApiRequest) => Object.fromEntries(req.query.entries());
/** A JSON number in the body is read from its exact text (lossless-json), as a decimal string. */
const exactStrings = (body: unknown) =>
  body && typeof body === "object" && !Array.isArray(body)
    ? Object.fromEntries(
        Object.entries(body).map(([k, v]) => [k, v !== null && typeof v === "object" && "isLosslessNumber" in v ? String(v) : v]),
      )
    : body;

const tokenOf = (req: ApiRequest) => req.header("x-order-token");

export const getHostedCurrencies: RouteHandler = async () => {
  const currencies: HostedCurrency[] = hostedCurrencies();
  return { body: { currencies }, headers: { "Cache-Control": "private, max-age=60" } };
};

export const getHostedEstimate: RouteHandler = async ({ req, env }) => {
  const q = parseWith(hostedEstimateQuery, queryOf(req));
  const body: HostedEstimate = await hostedEstimate(getDb(), {
    sel: { reseller: q.r, widget: q.w },
    from: q.from,
    to: q.to,
    amount: q.amount,
    toAmount: q.toAmount,
    rateType: q.rateType,
    clientIp: env.ip,
  });
  return { body };
};

export const getAddressCheck: RouteHandler = async ({ req }) => {
  const body: AddressCheck = checkAddress(parseWith(hostedAddressQuery, queryOf(req)));
  return { body };
};

export const postHostedOrder: RouteHandler = async ({ req, env }) => {
  const b = parseWith(hostedOrderBody, exactStrings(await readJsonBody(req, getConfig().MAX_BODY_BYTES)));
  const { token, order } = await createHostedOrder(getDb(), {
    sel: { reseller: b.r, widget: b.w },
    input: {
      from: b.from,
      to: b.to,
      amount: b.amount,
      toAmount: b.toAmount,
      rateType: b.rateType,
      address: b.address,
      extraId: b.extraId,
      refundAddress: b.refundAddress,
      refundExtraId: b.refundExtraId,
    },
    clientIp: env.ip,
  });
  return { status: 201, body: { token, statusPath: hostedStatusPath(order.id, token), order } };
};

/** The status: ETag (If-None-Match answers 304 while nothing changed) and Poll-After, as GET /exchange/{id}. */
export const getHostedOrderStatus: RouteHandler = async ({ req, env }) => {
  const { order, view } = await getHostedOrder(getDb(), { orderId: env.params.id ?? "", token: tokenOf(req) });
  const text = stringifyJson(view);
  const etag = etagOf(text);
  const headers: Record<string, string> = { ETag: etag, "Cache-Control": "private, no-cache" };
  const poll = pollAfterSeconds(order);
  if (poll !== null) headers["Poll-After"] = String(poll);
  if (noneMatchHits(req.header("if-none-match"), etag)) return { status: 304, body: null, headers };
  return { body: new RawJson(text), headers };
};

export const postHostedSandboxDeposit: RouteHandler = async ({ req, env }) => ({
  body: await hostedSandboxDeposit(getDb(), { orderId: env.params.id ?? "", token: tokenOf(req) }),
});

/** A refund address given after creation, by the holder of the status link's secret (wrong or none: 404). */
export const postHostedRefundAddress: RouteHandler = async ({ req, env }) => {
  const body = parseWith(hostedRefundAddressBody, await readJsonBody(req, getConfig().MAX_BODY_BYTES));
  const order = await setRefundAddress(getDb(), {
    orderId: env.params.id ?? "",
    auth: { token: tokenOf(req) },
    refundAddress: body.refundAddress,
    refundExtraId: body.refundExtraId,
    clientIp: env.ip,
  });
  return { body: await hostedOrderView(order) };
};
