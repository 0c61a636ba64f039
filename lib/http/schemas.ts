import { LosslessNumber } from "lossless-json";
import { z } from "zod";
import { FAILURE_REASONS, ORDER_STATES, RATE_TYPES, STATE_REASONS } from "@/lib/domain/order-states";
import { REFUND_STATES, REQUIRED_ACTIONS } from "@/lib/domain/required-action";
import { WITHDRAWAL_STATUSES } from "@/lib/withdrawals/types";

// The v1 request schemas (they validate every request) and response schemas (they document
// the responses). lib/http/openapi.ts builds the OpenAPI document from these same objects.
// Pure (no server-only): the hosted page's types derive from them (lib/http/hosted-schemas.ts).

const ticker = z.string().min(1).max(32).describe("Currency ticker, case-insensitive (answered lower-case)");
/** A JSON number in a request body, kept as its exact text (lib/http/respond.ts parses losslessly). */
const jsonNumber = z.instanceof(LosslessNumber).meta({ type: "number" });
const amount = z
  .union([z.string().max(64), jsonNumber])
  .describe(
    'Decimal amount, as a string ("0.5") or a JSON number, read exactly: at most 15 significant digits and the currency\'s decimal places',
  );
const optionalText = (max: number, what: string) => z.string().max(max).nullable().optional().describe(what);

export const estimateQuery = z.object({
  fromCurrency: ticker.describe("Source ticker (alias: from)"),
  toCurrency: ticker.describe("Destination ticker (alias: to)"),
  fromAmount: z.string().max(64).describe("Amount of the source currency (alias: amount)"),
});

const rateType = z
  .enum(RATE_TYPES)
  .default("floating")
  .describe("floating (the default): the rate of the moment the deposit is exchanged; fixed: a locked toAmount");

/** Extensions of GET /estimate: the rate type, and toAmount instead of fromAmount (a reverse quote). */
export const estimateExtensions = z.object({ rateType });

export const reverseEstimateQuery = z.object({
  fromCurrency: ticker.describe("Source ticker (alias: from)"),
  toCurrency: ticker.describe("Destination ticker (alias: to)"),
  toAmount: z
    .string()
    .max(64)
    .describe("Instead of fromAmount: the amount the user must receive; the answer's fromAmount is what to send (rounded up)"),
});

export const rangeQuery = z.object({
  fromCurrency: ticker.describe("Source ticker (alias: from)"),
  toCurrency: ticker.describe("Destination ticker (alias: to)"),
  rateType,
});

export const createExchangeBody = z.object({
  from: ticker.describe("Source ticker"),
  to: ticker.describe("Destination ticker"),
  amount,
  address: z.string().min(1).max(256).describe("Destination address, checked for the destination currency"),
  extraId: optionalText(256, "Destination tag / memo for destination currencies that use one"),
  refundAddress: optionalText(256, "Refund address (source currency); recommended"),
  refundExtraId: optionalText(256, "Extra ID of the refund address"),
  rateType: rateType
    .optional()
    .describe("An extension: fixed locks toAmount (with the rateId of a fixed-rate estimate, or at the rate of now)"),
  rateId: z
    .string()
    .max(64)
    .optional()
    .describe("An extension: the rateId of a fixed-rate estimate (rateType fixed) for this pair and amount"),
});

/** An extension: an order by the amount the user receives (fixed rate only). */
export const createExchangeByToAmountBody = createExchangeBody.omit({ amount: true, rateType: true }).extend({
  toAmount: amount.describe("The amount the user receives; the order's fromAmount is what to send (rounded up)"),
  rateType: z.literal("fixed").describe("toAmount needs a fixed rate"),
});

/** Printable text only: a control character (a NUL above all, which PostgreSQL's text refuses) is a 400, never a 500. */
const printable = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^\P{Cc}*$/u, "must not contain control characters");

/** An extension: a refund address given after creation (v1 and the hosted page's API). */
export const refundAddressBody = z
  .object({
    refundAddress: printable(256).min(1).describe("Refund address, checked for the order's source currency (fromCurrency)"),
    refundExtraId: printable(256)
      .nullable()
      .optional()
      .describe("Extra ID (memo, tag) of the refund address, for source currencies that use one"),
  })
  .strict();

export const sandboxDepositBody = z.object({
  amount: amount.optional().describe("Amount that arrived; defaults to the order's fromAmount"),
});

export const sandboxEngineBody = z
  .object({
    fault: z.enum(["unavailable", "error"]).nullable().optional().describe("Make the engine fail for your own requests; null restores it"),
    rateMoveBps: jsonNumber
      .transform((n) => Number(n.toString()))
      .pipe(z.number().int().min(-5000).max(5000))
      .optional()
      .describe(
        "An extension: move the market for your own requests and orders by this many basis points (-500: every rate 5% lower; 0 restores it). Floating orders are exchanged at the moved rate; fixed ones keep their locked amount",
      ),
  })
  .refine((b) => b.fault !== undefined || b.rateMoveBps !== undefined, "Give fault, rateMoveBps or both");

const dec = z.number().describe("Exact decimal: at most 15 significant digits and the currency's decimal places");
const iso = z.string().describe("ISO 8601 UTC timestamp");

export const currencySchema = z.object({
  ticker: z.string(),
  name: z.string(),
  network: z.string(),
  hasExtraId: z.boolean(),
  isAvailable: z.boolean(),
  symbol: z.string(),
  extraIdName: z.string().nullable(),
  precision: z.number().int(),
  minAmount: dec,
  maxAmount: dec,
});

export const currenciesResponse = z.object({ currencies: z.array(currencySchema) });

export const estimateResponse = z.object({
  fromCurrency: z.string(),
  toCurrency: z.string(),
  fromAmount: dec,
  toAmount: dec.describe("Output including the platform fee and the caller's markup"),
  rate: z.number().describe("toAmount / fromAmount, 12 significant digits"),
  fee: z.string().describe('Total percentage taken (platform fee + markup), e.g. "1.75%"'),
  validUntil: iso.describe("Until when the estimate holds; with rateType fixed, until when rateId may be used"),
  minAmount: dec,
  maxAmount: dec,
  rateType: z.enum(RATE_TYPES).describe("An extension: floating unless rateType=fixed was asked"),
  rateId: z.string().optional().describe("rateType fixed: send it to POST /exchange (with rateType fixed) before validUntil"),
});

export const rangeResponse = z.object({
  fromCurrency: z.string(),
  toCurrency: z.string(),
  rateType: z.enum(RATE_TYPES),
  minAmount: dec.describe("Smallest amount of fromCurrency accepted (the minAmount of AMOUNT_TOO_LOW)"),
  maxAmount: dec.describe("Largest amount of fromCurrency accepted (the maxAmount of AMOUNT_TOO_HIGH)"),
});

export const orderResponse = z.object({
  id: z.string(),
  payinAddress: z.string(),
  payinExtraId: z.string().nullable(),
  payoutAddress: z.string(),
  payoutExtraId: z.string().nullable(),
  fromCurrency: z.string(),
  toCurrency: z.string(),
  fromAmount: dec,
  toAmount: dec.describe("Amount the user receives, markup included"),
  status: z.enum(ORDER_STATES),
});

export const orderStatusResponse = orderResponse.extend({
  createdAt: iso,
  updatedAt: iso,
  expiresAt: iso,
  amountReceived: dec.nullable(),
  payinHash: z.string().nullable(),
  payoutHash: z.string().nullable(),
  refundAddress: z.string().nullable(),
  refundExtraId: z.string().nullable(),
  refund: z
    .object({
      state: z.enum(REFUND_STATES).describe("pending: owed, not yet sent; awaiting_address: no refundAddress"),
      amount: dec.nullable(),
      hash: z.string().nullable(),
    })
    .nullable(),
  failureReason: z
    .enum(FAILURE_REASONS)
    .nullable()
    .describe("refunded / provider_failed: an upstream provider refunded the deposit / reported the exchange failed"),
  stateReason: z
    .enum(STATE_REASONS)
    .nullable()
    .describe("While open: why the upstream provider holds the order (a refund in progress stays open until it is sent)"),
  requiredAction: z
    .enum(REQUIRED_ACTIONS)
    .nullable()
    .describe(
      "An extension: what the user must do, if anything. provide_refund_address: the order is held or failed without a refund address and one would let it be refunded (POST /exchange/{id}/refund-address); contact_support: only the operator's support can resolve it; wait_for_review: the provider reviews it, nothing to do but wait. null: nothing. Derived from status, stateReason, refund and refundAddress (docs/api.md)",
    ),
  history: z.array(z.object({ status: z.enum(ORDER_STATES), at: iso })).describe("Every state so far, oldest first"),
});

export const orderWebhookEvent = z.object({
  type: z.enum(["order.created", "order.status_changed"]),
  timestamp: iso,
  data: z.object({
    orderId: z.string(),
    status: z.enum(ORDER_STATES).describe("The order's state now"),
    previousStatus: z.enum(ORDER_STATES).optional().describe("order.status_changed: the state before"),
    channel: z
      .object({ type: z.enum(["key", "widget", "page"]), id: z.string().nullable() })
      .nullable()
      .describe("The channel the order came through: an API key (its id), a widget (its id) or the hosted page (id null)"),
    order: orderStatusResponse.describe("The full status body, as GET /exchange/{id} answers it"),
  }),
});

export const orderActionWebhookEvent = z.object({
  type: z.literal("order.action_required"),
  timestamp: iso,
  data: z.object({
    orderId: z.string(),
    status: z.enum(ORDER_STATES).describe("The order's state now"),
    requiredAction: z.enum(REQUIRED_ACTIONS).describe("What the user must do now (the order body's requiredAction)"),
    previousRequiredAction: z.enum(REQUIRED_ACTIONS).nullable().describe("What it was before: null when nothing was required"),
    channel: z
      .object({ type: z.enum(["key", "widget", "page"]), id: z.string().nullable() })
      .nullable()
      .describe("The channel the order came through: an API key (its id), a widget (its id) or the hosted page (id null)"),
    order: orderStatusResponse.describe("The full status body, as GET /exchange/{id} answers it"),
  }),
});

export const withdrawalWebhookEvent = z.object({
  type: z.enum(["withdrawal.created", "withdrawal.status_changed"]),
  timestamp: iso,
  data: z.object({
    withdrawalId: z.string(),
    // awaiting_approval: above WITHDRAWAL_APPROVAL_USD, until an operator approves or rejects it (docs/withdrawals.md).
    status: z.enum(WITHDRAWAL_STATUSES),
    previousStatus: z.enum(WITHDRAWAL_STATUSES).optional(),
    withdrawal: z.record(z.string(), z.unknown()).describe("The withdrawal as the dashboard shows it: amounts, asset, chain, txHash"),
  }),
});

export const testWebhookEvent = z.object({
  type: z.literal("webhook.test"),
  timestamp: iso,
  data: z.object({ endpointId: z.string(), message: z.string() }),
});

/**
 * GET /exchange/{id}/events (Server-Sent Events): where a stream resumes, the id of the last
 * event received (the Last-Event-ID header, or the lastEventId query parameter).
 */
export const lastEventIdParam = z
  .string()
  .regex(/^\d{1,15}$/, "expected the id of an event received (digits)")
  .transform(Number)
  .describe("The id of the last event received: the stream sends the order's events after it, then live ones");

export const eventsQuery = z.object({ lastEventId: lastEventIdParam.optional() });

/** The data of a stream's `status` event: one state the order entered. */
export const orderStatusEvent = z.object({
  id: z.string().describe("The order's id"),
  status: z.enum(ORDER_STATES).describe("The state the order entered"),
  at: iso.describe("When it entered it"),
});

/** The data of a stream's `end` event: the order's final state; the stream closes after it. */
export const orderStreamEnd = z.object({
  id: z.string().describe("The order's id"),
  status: z.enum(["finished", "failed"]).describe("The order's final state"),
});

export const sandboxEngineCallsResponse = z.object({
  orderId: z.string(),
  calls: z
    .array(
      z.object({
        method: z.enum(["openSwap", "readSwap"]),
        state: z.enum(ORDER_STATES).nullable().describe("The order's state the call was about (readSwap)"),
        startedAt: iso,
        endedAt: iso,
        outcome: z.enum(["ok", "error"]),
      }),
    )
    .describe("Calls this server process's simulated engine answered about the order, oldest first"),
});

export const errorResponse = z.object({
  error: z
    .object({ code: z.string().describe("Stable upper-case code"), message: z.string() })
    .catchall(z.unknown())
    .describe("Extra members (minAmount, field, retryAfter, issues) may be present"),
});
