import "server-only";
import { z } from "zod";
import { DASHBOARD_ONLY_CODES, type ErrorCode } from "@/lib/errors";
import { HTTP_STATUS } from "./errors";
import * as h from "./hosted-schemas";
import * as s from "./schemas";

// The OpenAPI 3.1 documents of the v1 API and of the hosted page's API, generated from the
// zod schemas that validate requests (lib/http/schemas.ts, lib/http/hosted-schemas.ts).
// OpenAPI 3.1 uses JSON Schema 2020-12, zod's native target.

const schema = (t: z.ZodType, io: "input" | "output" = "output") => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(t, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return io === "input" ? withoutDefaults(rest) : rest;
};

/** A request schema as the documents show it: zod's input side, defaults said in descriptions (withoutDefaults). */
export const requestSchema = (t: z.ZodType) => schema(t, "input");

/** The JSON Schema keywords whose value is a map of names to schemas (a property may be called "default"). */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/**
 * What a client sends, without `default`: the default is said in the description instead. A
 * `default` on a request property is documentation only (the server applies it), but code
 * generators read it as "always present": openapi-typescript's default flags (defaultNonNullable)
 * made POST /exchange's `rateType` a required member of the request body's type. The
 * validation and the defaults the server applies are unchanged (lib/http/schemas.ts).
 */
function withoutDefaults<T>(node: T, isMap = false): T {
  if (Array.isArray(node)) return node.map((n) => withoutDefaults(n)) as T;
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (!isMap && k === "default") continue;
    out[k] = withoutDefaults(v, !isMap && SCHEMA_MAPS.has(k));
  }
  const d = (node as Record<string, unknown>).default;
  if (!isMap && d !== undefined) {
    const said = `default: ${typeof d === "string" ? d : JSON.stringify(d)}`;
    const text = typeof out.description === "string" ? out.description : "";
    if (!/\bdefault\b/i.test(text)) out.description = text ? `${text} (${said})` : `Optional (${said})`;
  }
  return out as T;
}

const codesFor = (status: number) =>
  (Object.entries(HTTP_STATUS) as [ErrorCode, number][])
    .filter(([c, st]) => st === status && !DASHBOARD_ONLY_CODES.includes(c))
    .map(([c]) => c);

/** Every code the v1 API answers, in the table's order (a client's union type of them: packages/client). */
const v1ErrorCodes = () => (Object.keys(HTTP_STATUS) as ErrorCode[]).filter((c) => !DASHBOARD_ONLY_CODES.includes(c));

const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((st) => [
      String(st),
      {
        description: `Error: ${codesFor(st).join(", ")}`,
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      },
    ]),
  );

const ok = (ref: string, description: string) => ({
  description,
  headers: {
    RateLimit: { $ref: "#/components/headers/RateLimit" },
    "RateLimit-Policy": { $ref: "#/components/headers/RateLimitPolicy" },
  },
  content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } },
});

const ETAG = { schema: { type: "string" }, description: "Entity tag of the status body; changes whenever the body does" };
const POLL_AFTER = {
  schema: { type: "integer", minimum: 1, maximum: 60 },
  description:
    "Seconds after which reading the order again is worth it (when the service next looks at it); absent once the order is final",
};

/** The status reads' conditional request (v1's and the hosted page's): the last ETag. */
const IF_NONE_MATCH = {
  name: "If-None-Match",
  in: "header",
  required: false,
  schema: { type: "string" },
  description: "The ETag of the last answer",
};

/** Their answer while nothing changed since that ETag. */
const NOT_MODIFIED = {
  description: "Not modified since the ETag given in If-None-Match; no body",
  headers: { ETag: ETAG, "Poll-After": POLL_AFTER },
};

function withHeaders<T extends { headers: object }>(response: T, headers: Record<string, object>): T {
  return { ...response, headers: { ...response.headers, ...headers } };
}

function queryParams(obj: z.ZodObject, aliases: Record<string, string>) {
  const js = schema(obj, "input") as { properties: Record<string, object>; required?: string[] };
  return Object.entries(js.properties).flatMap(([name, sch]) => [
    {
      name,
      in: "query",
      required: false,
      schema: sch,
      description: `${(sch as { description?: string }).description ?? ""} (required unless ${aliases[name]} is given)`,
    },
    { name: aliases[name], in: "query", required: false, schema: { type: "string" }, description: `Alias of ${name}` },
  ]);
}

const idParam = { name: "id", in: "path", required: true, schema: { type: "string", pattern: "^[0-9a-f]{24}$" } };

/** A webhook as OpenAPI 3.1 describes it: the request we send to a reseller's endpoint. */
function webhookOperation(operationId: string, ref: string, summary: string) {
  const header = (name: string, description: string) => ({ name, in: "header", required: true, schema: { type: "string" }, description });
  return {
    post: {
      operationId,
      summary,
      description:
        "Standard Webhooks: verify webhook-signature (v1,<base64 HMAC-SHA256 of webhook-id.webhook-timestamp.body> with your endpoint's whsec_ secret; during a rotation two space-separated signatures) before trusting the body. Answer 2xx; anything else is retried (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). Events about one order arrive in order.",
      parameters: [
        header("webhook-id", "The event's id (msg_...): the same on every retry; use it to drop duplicates"),
        header("webhook-timestamp", "Seconds since the epoch, of this attempt"),
        header("webhook-signature", "v1,<base64 signature> (one or two, space-separated)"),
      ],
      requestBody: { required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } } },
      responses: { "200": { description: "Received (any 2xx)" } },
    },
  };
}

let cached: object | null = null;

export function openApiDocument(): object {
  cached ??= {
    openapi: "3.1.0",
    info: {
      title: "Reseller exchange API",
      version: "1.0.0",
      description:
        "List currencies, get estimates, create exchange orders and poll their status. Without X-API-Key: the Public tier (60 requests/minute, 100 orders/day per IP, no markup). With a key: 300 requests/minute and your markup applied.",
    },
    servers: [{ url: "/api/v1" }, { url: "/v1" }],
    security: [{}, { ApiKey: [] }],
    paths: {
      "/currencies": {
        get: {
          operationId: "listCurrencies",
          responses: { "200": ok("Currencies", "All currencies"), ...errorResponses(401, 403, 405, 429, 500) },
        },
      },
      "/estimate": {
        get: {
          operationId: "getEstimate",
          description:
            "An estimate by fromAmount (the spec's), or, an extension, by toAmount instead: the fromAmount the user must send (rounded up) to receive at least toAmount. With rateType=fixed the answer has a rateId that POST /exchange takes until validUntil.",
          parameters: [
            ...queryParams(s.estimateQuery, { fromCurrency: "from", toCurrency: "to", fromAmount: "amount" }),
            {
              name: "toAmount",
              in: "query",
              required: false,
              schema: schema(s.reverseEstimateQuery.shape.toAmount, "input"),
              description: "Instead of fromAmount: the amount the user must receive (a reverse quote)",
            },
            { name: "rateType", in: "query", required: false, schema: schema(s.estimateExtensions.shape.rateType, "input") },
          ],
          responses: { "200": ok("Estimate", "Estimate, markup included"), ...errorResponses(400, 401, 403, 405, 422, 429, 500, 503) },
        },
      },
      "/range": {
        get: {
          operationId: "getRange",
          description:
            "The pair's limits on the amount sent: the same minAmount and maxAmount that /estimate answers and that its AMOUNT_TOO_LOW / AMOUNT_TOO_HIGH errors carry.",
          parameters: [
            ...queryParams(s.rangeQuery.pick({ fromCurrency: true, toCurrency: true }), { fromCurrency: "from", toCurrency: "to" }),
            { name: "rateType", in: "query", required: false, schema: schema(s.rangeQuery.shape.rateType, "input") },
          ],
          responses: { "200": ok("Range", "The pair's limits"), ...errorResponses(400, 401, 403, 405, 422, 429, 500, 503) },
        },
      },
      "/exchange": {
        post: {
          operationId: "createExchange",
          parameters: [{ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", maxLength: 255 } }],
          description:
            "Creates an order by amount (the spec's), or, an extension, by toAmount with rateType fixed. rateType fixed locks toAmount: with the rateId of a fixed-rate estimate its very terms, otherwise the rate of now. A fixed order is paid its toAmount for a deposit of exactly fromAmount seen within the fixed window; another amount or a later deposit fails the order (deposit_amount_mismatch, deposit_late) with a refund.",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  oneOf: [{ $ref: "#/components/schemas/CreateExchange" }, { $ref: "#/components/schemas/CreateExchangeByToAmount" }],
                },
              },
            },
          },
          responses: {
            "201": ok("ExchangeOrder", "The new order (or the same order, replayed for the same Idempotency-Key and body)"),
            ...errorResponses(400, 401, 403, 405, 409, 413, 415, 422, 429, 500, 503),
          },
        },
      },
      "/exchange/{id}": {
        get: {
          operationId: "getExchange",
          description:
            "The order's current status. Send the last ETag in If-None-Match to get 304 (no body) while nothing changed; Poll-After says when reading again is worth it.",
          parameters: [idParam, IF_NONE_MATCH],
          responses: {
            "200": withHeaders(ok("OrderStatus", "The order's current status"), { ETag: ETAG, "Poll-After": POLL_AFTER }),
            "304": NOT_MODIFIED,
            ...errorResponses(401, 403, 404, 405, 429, 500),
          },
        },
      },
      "/exchange/{id}/events": {
        get: {
          operationId: "streamExchangeEvents",
          description:
            "An extension: the order's states as Server-Sent Events (docs/api.md, Live status), for the same callers as GET /exchange/{id} (another reseller's order: 404). The stream opens with a `retry:` line, then sends each state the order entered as one event `status` whose `id` is the state's event id and whose `data` is an OrderStatusEvent; without Last-Event-ID it starts with the current state, with one it sends every state entered after that event, then the live ones. Once the order is final it sends `event: end` (data: an OrderStreamEnd) and closes: close the EventSource then, or it reconnects. A comment line `: ping` comes every EVENTS_HEARTBEAT_SECONDS. Open streams are bounded per API key and per keyless client IP, on each server instance: past the bound, 429 RATE_LIMITED before the stream opens. Errors before the stream opens are JSON, as on every route.",
          parameters: [
            idParam,
            {
              name: "Last-Event-ID",
              in: "header",
              required: false,
              schema: { type: "string", pattern: "^[0-9]{1,15}$" },
              description: "The id of the last event received (an EventSource sends it when it reconnects): the stream resumes after it",
            },
            {
              name: "lastEventId",
              in: "query",
              required: false,
              schema: { type: "string", pattern: "^[0-9]{1,15}$" },
              description:
                "The same as Last-Event-ID, for clients that cannot set headers (the header wins when both are given); 0: every state from the first",
            },
          ],
          responses: {
            "200": {
              description:
                "The stream (text/event-stream): `retry: <ms>`, then events `status` (id: the state's event id, data: OrderStatusEvent), heartbeat comments `: ping`, and, once the order is final, `end` (data: OrderStreamEnd) before it closes",
              headers: {
                RateLimit: { $ref: "#/components/headers/RateLimit" },
                "RateLimit-Policy": { $ref: "#/components/headers/RateLimitPolicy" },
                "Cache-Control": { schema: { type: "string", const: "no-store" } },
                "X-Accel-Buffering": {
                  schema: { type: "string", const: "no" },
                  description: "Tells a proxy in front (nginx) not to buffer the stream",
                },
              },
              content: {
                "text/event-stream": {
                  schema: {
                    type: "string",
                    description:
                      'Server-Sent Events: `id: 41\\nevent: status\\ndata: {"id":"<order id>","status":"confirming","at":"2026-11-29T12:00:00.000Z"}` per state (the data: #/components/schemas/OrderStatusEvent), `event: end\\ndata: {"id":"<order id>","status":"finished"}` at the end (#/components/schemas/OrderStreamEnd)',
                  },
                },
              },
            },
            ...errorResponses(400, 401, 403, 404, 405, 429, 500),
          },
        },
      },
      "/exchange/{id}/refund-address": {
        post: {
          operationId: "setRefundAddress",
          description:
            "An extension: gives the order a refund address after creation, the way out of requiredAction provide_refund_address (docs/api.md, Refund address after creation). Needs the API key of the order's reseller (another reseller's order, or a keyless one: 404). The address is checked for the order's fromCurrency (422 INVALID_REFUND_ADDRESS, INVALID_REFUND_EXTRA_ID) and passed to the order's provider where it is held upstream. 409 REFUND_ADDRESS_LOCKED: the order is finished, refunded or being refunded, failed with nothing to refund, or already has a refund address; 409 REFUND_ADDRESS_UNSUPPORTED: its provider cannot take one after creation. The same address again answers 200 (a retry).",
          parameters: [idParam],
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/RefundAddress" } } } },
          responses: {
            "200": ok("OrderStatus", "The order, with its refund address"),
            ...errorResponses(400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 500, 503),
          },
        },
      },
      "/sandbox/exchange/{id}/deposit": {
        post: {
          operationId: "sandboxDeposit",
          description: "Sandbox only: report that the user's deposit arrived (the quoted amount unless `amount` is given).",
          parameters: [idParam],
          requestBody: { required: false, content: { "application/json": { schema: { $ref: "#/components/schemas/SandboxDeposit" } } } },
          responses: {
            "200": ok("OrderStatus", "The order, now confirming"),
            ...errorResponses(400, 401, 403, 404, 405, 409, 413, 415, 422, 429),
          },
        },
      },
      "/sandbox/exchange/{id}/engine-calls": {
        get: {
          operationId: "sandboxEngineCalls",
          description:
            "Sandbox only: what this server process's simulated engine was asked about the order (opening its swap, reading its state), with times and outcomes.",
          parameters: [idParam],
          responses: { "200": ok("SandboxEngineCalls", "The engine's calls about the order"), ...errorResponses(401, 403, 404, 405, 429) },
        },
      },
      "/sandbox/engine": {
        post: {
          operationId: "sandboxEngine",
          description:
            "Sandbox only: make the engine fail (503 or 500) for your own requests, to test your error handling; and (an extension) move the market for your own requests and orders (rateMoveBps), to see fixed and floating orders differ.",
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/SandboxEngine" } } } },
          responses: { "200": { description: "The fault now in effect" }, ...errorResponses(400, 401, 403, 404, 405, 413, 415, 429) },
        },
      },
    },
    webhooks: {
      "order.created": webhookOperation("orderCreated", "OrderWebhookEvent", "An order was created with your API key."),
      "order.status_changed": webhookOperation("orderStatusChanged", "OrderWebhookEvent", "One of your orders changed state."),
      "order.action_required": webhookOperation(
        "orderActionRequired",
        "OrderActionWebhookEvent",
        "One of your orders needs something of its user (its requiredAction became non-null or changed): a refund address, a word with support, or patience during a review.",
      ),
      "withdrawal.created": webhookOperation("withdrawalCreated", "WithdrawalWebhookEvent", "A withdrawal of your profit was queued."),
      "withdrawal.status_changed": webhookOperation(
        "withdrawalStatusChanged",
        "WithdrawalWebhookEvent",
        "One of your withdrawals changed status (processing, sent, confirmed or failed).",
      ),
      "webhook.test": webhookOperation("webhookTest", "TestWebhookEvent", "Sent from the dashboard's Send test event."),
    },
    components: {
      securitySchemes: { ApiKey: { type: "apiKey", in: "header", name: "X-API-Key" } },
      headers: {
        RateLimit: { schema: { type: "string" }, description: 'Remaining quota, e.g. "minute";r=59;t=60' },
        RateLimitPolicy: { schema: { type: "string" }, description: 'Quota policy, e.g. "minute";q=60;w=60' },
      },
      schemas: {
        Currency: schema(s.currencySchema),
        Currencies: schema(s.currenciesResponse),
        Estimate: schema(s.estimateResponse),
        Range: schema(s.rangeResponse),
        CreateExchange: schema(s.createExchangeBody, "input"),
        CreateExchangeByToAmount: schema(s.createExchangeByToAmountBody, "input"),
        ExchangeOrder: schema(s.orderResponse),
        OrderStatus: schema(s.orderStatusResponse),
        OrderStatusEvent: schema(s.orderStatusEvent),
        OrderStreamEnd: schema(s.orderStreamEnd),
        SandboxDeposit: schema(s.sandboxDepositBody, "input"),
        SandboxEngine: schema(s.sandboxEngineBody, "input"),
        SandboxEngineCalls: schema(s.sandboxEngineCallsResponse),
        Error: schema(s.errorResponse),
        ErrorCode: {
          type: "string",
          enum: v1ErrorCodes(),
          description:
            "The codes error.code takes in this API (docs/api.md, Errors). Codes are added, never renamed: a client meets an unknown one by its HTTP status.",
        },
        OrderWebhookEvent: schema(s.orderWebhookEvent),
        OrderActionWebhookEvent: schema(s.orderActionWebhookEvent),
        RefundAddress: schema(s.refundAddressBody, "input"),
        TestWebhookEvent: schema(s.testWebhookEvent),
        WithdrawalWebhookEvent: schema(s.withdrawalWebhookEvent),
      },
    },
  };
  return cached;
}

/** Query parameters from a request schema's properties (its input form: defaults make them optional). */
function queryOf(obj: z.ZodType) {
  const js = schema(obj, "input") as { properties: Record<string, { description?: string }>; required?: string[] };
  return Object.entries(js.properties).map(([name, sch]) => ({
    name,
    in: "query",
    required: js.required?.includes(name) ?? false,
    schema: sch,
    ...(sch.description ? { description: sch.description } : {}),
  }));
}

const orderToken = {
  name: "X-Order-Token",
  in: "header",
  required: true,
  schema: { type: "string", maxLength: 100 },
  description: "The status link's secret (the token of POST /orders); without the right one, the order is not found",
};
const hostedIdParam = { name: "id", in: "path", required: true, schema: { type: "string" } };

let hostedCached: object | null = null;

/** The hosted page's and the widget's API (/api/hosted, docs/widgets.md): for the app's own pages only. */
export function hostedOpenApiDocument(): object {
  hostedCached ??= {
    openapi: "3.1.0",
    info: {
      title: "Hosted exchange page API",
      version: "1.0.0",
      description:
        "The API of the hosted exchange page and the widget: answers only requests from the app's own pages (Sec-Fetch-Site: same-origin, or an Origin equal to the app's; otherwise 403 FORBIDDEN_ORIGIN), with no CORS headers. Every request counts against the client IP's keyless limits, every order against its daily orders. A page names itself by r (a reseller) or w (a widget). Other sites and programs use the v1 API.",
    },
    servers: [{ url: "/api/hosted" }],
    paths: {
      "/currencies": {
        get: {
          operationId: "hostedCurrencies",
          description: "The currencies a user can pick: the available ones, the popular first, then by name.",
          responses: { "200": ok("HostedCurrencies", "The currencies"), ...errorResponses(403, 429, 500) },
        },
      },
      "/estimate": {
        get: {
          operationId: "hostedEstimate",
          description:
            "An estimate with the page's markup, by amount or (rateType fixed) by toAmount. Never a rateId: a fixed rate is locked only by creating the order.",
          parameters: queryOf(h.hostedEstimateQuery),
          responses: { "200": ok("HostedEstimate", "The estimate"), ...errorResponses(400, 403, 404, 422, 429, 500, 503) },
        },
      },
      "/address": {
        get: {
          operationId: "hostedAddressCheck",
          description: "An address (and extra id) checked for a currency as the user types it.",
          parameters: queryOf(h.hostedAddressQuery),
          responses: { "200": ok("AddressCheck", "The check"), ...errorResponses(400, 403, 422, 429, 500) },
        },
      },
      "/orders": {
        post: {
          operationId: "hostedCreateOrder",
          description: "Creates the order with the page's markup and channel; answers it with the secret of its status link, shown once.",
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/HostedOrderRequest" } } } },
          responses: {
            "201": ok("HostedOrderCreated", "The new order and its status link"),
            ...errorResponses(400, 403, 404, 409, 413, 415, 422, 429, 500, 503),
          },
        },
      },
      "/orders/{id}": {
        get: {
          operationId: "hostedOrderStatus",
          description:
            "The order's status page view. Send the last ETag in If-None-Match to get 304 while nothing changed; Poll-After says when reading again is worth it.",
          parameters: [hostedIdParam, orderToken, IF_NONE_MATCH],
          responses: {
            "200": withHeaders(ok("HostedOrderView", "The order's view"), { ETag: ETAG, "Poll-After": POLL_AFTER }),
            "304": NOT_MODIFIED,
            ...errorResponses(403, 404, 429, 500),
          },
        },
      },
      "/orders/{id}/refund-address": {
        post: {
          operationId: "hostedSetRefundAddress",
          description:
            "The status page's way out of requiredAction provide_refund_address: gives the order a refund address, checked for its fromCurrency and passed to its provider. 409 REFUND_ADDRESS_LOCKED or REFUND_ADDRESS_UNSUPPORTED as in the v1 API's POST /exchange/{id}/refund-address.",
          parameters: [hostedIdParam, orderToken],
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/HostedRefundAddress" } } },
          },
          responses: {
            "200": ok("HostedOrderView", "The order, with its refund address"),
            ...errorResponses(400, 403, 404, 409, 413, 415, 422, 429, 500, 503),
          },
        },
      },
      "/orders/{id}/deposit": {
        post: {
          operationId: "hostedSandboxDeposit",
          description: "Sandbox only: the deposit screen's simulated deposit of the quoted amount.",
          parameters: [hostedIdParam, orderToken],
          responses: { "200": ok("HostedOrderView", "The order, now confirming"), ...errorResponses(403, 404, 409, 422, 429, 500) },
        },
      },
    },
    components: {
      headers: {
        RateLimit: { schema: { type: "string" }, description: 'Remaining quota, e.g. "minute";r=59;t=60' },
        RateLimitPolicy: { schema: { type: "string" }, description: 'Quota policy, e.g. "minute";q=60;w=60' },
      },
      schemas: {
        HostedCurrency: schema(h.hostedCurrency),
        HostedCurrencies: schema(h.hostedCurrenciesResponse),
        HostedEstimate: schema(h.hostedEstimateResponse),
        AddressCheck: schema(h.addressCheckResponse),
        HostedOrderRequest: schema(h.hostedOrderBody, "input"),
        HostedOrderCreated: schema(h.hostedOrderCreated),
        HostedOrderView: schema(h.hostedOrderView),
        HostedRefundAddress: schema(h.hostedRefundAddressBody, "input"),
        Error: schema(s.errorResponse),
      },
    },
  };
  return hostedCached;
}
