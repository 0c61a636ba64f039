import { z } from "zod";
import { RATE_TYPES } from "@/lib/domain/order-states";
import { orderStatusResponse, refundAddressBody } from "./schemas";

// The hosted page's and the widget's API (/api/hosted, docs/widgets.md): the request schemas
// that validate its requests and the response schemas that document its answers, in the
// hosted OpenAPI document (lib/http/openapi.ts) and, through z.infer, in the page's own types
// (app/_hosted/api.ts). Pure: zod and the shared vocabulary only, so the page may import it.

const id = z
  .string()
  .regex(/^[1-9A-HJ-NP-Za-km-z]{1,64}$/, "is not an id")
  .describe("Public id (base58)");
/** Which page asks: a reseller's page (r, with w as its channel) or a widget (w). */
const selector = {
  r: id.optional().describe("The reseller whose hosted page asks (its /x/<id>)"),
  w: id.optional().describe("The widget that asks (its /w/<id>), or the channel of the reseller's page"),
};
const ticker = z.string().min(1).max(20).describe("Currency ticker");
const amount = z.string().trim().min(1).max(64).describe("Decimal amount, as a string");
const rateType = z.enum(RATE_TYPES).default("floating");
const eitherAmount = (q: { amount?: string; toAmount?: string }) => (q.amount === undefined) !== (q.toAmount === undefined);

export const hostedEstimateQuery = z
  .object({
    ...selector,
    from: ticker,
    to: ticker,
    amount: amount.optional().describe("The amount to send (or toAmount)"),
    toAmount: amount.optional().describe("The amount to receive (or amount)"),
    rateType,
  })
  .refine(eitherAmount, { message: "Give either amount or toAmount", path: ["amount"] });

export const hostedAddressQuery = z.object({
  currency: ticker,
  address: z.string().max(200),
  extraId: z.string().max(100).optional(),
});

const optionalText = z.string().max(200).nullish();

export const hostedOrderBody = z
  .object({
    ...selector,
    from: ticker,
    to: ticker,
    amount: amount.optional().describe("The amount to send (or toAmount, with rateType fixed)"),
    toAmount: amount.optional().describe("The amount to receive; needs rateType fixed"),
    rateType,
    address: z.string().min(1).max(200).describe("Destination address"),
    extraId: optionalText.describe("Destination tag / memo"),
    refundAddress: optionalText.describe("Refund address (source currency)"),
    refundExtraId: optionalText.describe("Extra ID of the refund address"),
  })
  .strict()
  .refine(eitherAmount, { message: "Give either amount or toAmount", path: ["amount"] })
  .refine((q) => q.toAmount === undefined || q.rateType === "fixed", {
    message: "An amount to receive needs a fixed rate",
    path: ["rateType"],
  });

/** A refund address given after creation (POST /orders/{id}/refund-address): the v1 body's. */
export const hostedRefundAddressBody = refundAddressBody;

/** The page shows amounts as they are: exact decimals as strings. */
const decimal = z.string().describe("Exact decimal, as a string");

export const hostedCurrency = z.object({
  ticker: z.string(),
  symbol: z.string(),
  name: z.string(),
  network: z.string(),
  hasExtraId: z.boolean(),
  extraIdName: z.string().nullable(),
  popular: z.boolean().describe("Shown first in the picker"),
  minAmount: decimal,
  maxAmount: decimal,
});

export const hostedCurrenciesResponse = z.object({ currencies: z.array(hostedCurrency) });

export const hostedEstimateResponse = z.object({
  fromCurrency: z.string(),
  toCurrency: z.string(),
  fromAmount: decimal,
  toAmount: decimal.describe("What the user receives, the channel's markup included"),
  rate: decimal,
  fee: z.string().describe('Total percentage taken (platform fee + markup), e.g. "1.75%"'),
  rateType: z.enum(RATE_TYPES).describe("Never with a rateId: a fixed rate is locked only by creating the order"),
  validUntil: z.string().describe("ISO 8601 UTC timestamp"),
  minAmount: decimal,
  maxAmount: decimal,
});

export const addressCheckResponse = z.object({
  valid: z.boolean(),
  reason: z.string().nullable().describe("Why the address is refused, for the user"),
  extraIdValid: z.boolean().nullable().describe("null when no extra id was given"),
  extraIdName: z.string().nullable().describe("The currency's name for its extra id, when it takes one"),
});

const side = z.object({
  ticker: z.string(),
  symbol: z.string(),
  name: z.string(),
  network: z.string(),
  extraIdName: z.string().nullable(),
});

const link = z.string().nullable().describe("The block explorer's page of the transaction");

/** The status page's view of an order: the v1 status body, with names, explorer links and the deposit QR code. */
export const hostedOrderView = orderStatusResponse.extend({
  rateType: z.enum(RATE_TYPES),
  fixedUntil: z.string().nullable().describe("rateType fixed: until when a deposit of exactly fromAmount gets toAmount"),
  from: side,
  to: side,
  links: z.object({ payin: link, payout: link, refund: link }),
  depositQr: z.string().nullable().describe("While waiting: a PNG data URL of the deposit address's QR code"),
  amountSent: decimal.nullable().describe("Once finished: the amount sent to the payout address; null before"),
});

export const hostedOrderCreated = z.object({
  token: z.string().describe("The status link's secret, shown once; send it as X-Order-Token"),
  statusPath: z.string().describe("The status page: /o/<id>?t=<token>"),
  order: hostedOrderView,
});

export type HostedCurrency = z.infer<typeof hostedCurrency>;
export type HostedEstimate = z.infer<typeof hostedEstimateResponse>;
export type AddressCheck = z.infer<typeof addressCheckResponse>;
export type HostedOrderView = z.infer<typeof hostedOrderView>;
export type HostedEstimateQuery = z.input<typeof hostedEstimateQuery>;
