// The client's names for the API's types, all taken from the generated schema (schema.ts):
// a change of the API's document changes them.
import type { components, operations } from "./schema.js";

type Schemas = components["schemas"];
type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;
type Query<Op extends keyof operations> = NonNullable<operations[Op]["parameters"]["query"]>;

export type Currency = Schemas["Currency"];
export type Currencies = Schemas["Currencies"];
export type Estimate = Schemas["Estimate"];
export type Range = Schemas["Range"];
export type ExchangeOrder = Schemas["ExchangeOrder"];
export type OrderStatus = Schemas["OrderStatus"];
export type OrderState = OrderStatus["status"];
export type RateType = Estimate["rateType"];
export type SandboxEngineCalls = Schemas["SandboxEngineCalls"];
/** Every code `error.code` takes in the v1 API (the document's ErrorCode). */
export type ErrorCode = Schemas["ErrorCode"];
export type ErrorBody = Schemas["Error"];

/** POST /exchange's body: by amount, or (fixed rate) by toAmount. */
export type CreateExchangeRequest = Json<operations["createExchange"]["requestBody"]>;
export type RefundAddressRequest = Json<operations["setRefundAddress"]["requestBody"]>;
export type SandboxDepositRequest = Schemas["SandboxDeposit"];
export type SandboxEngineRequest = Schemas["SandboxEngine"];

type EstimateQuery = Query<"getEstimate">;
/** GET /estimate: by fromAmount, or (a reverse quote) by toAmount; the document's query parameters. */
export type EstimateRequest = Required<Pick<EstimateQuery, "fromCurrency" | "toCurrency">> &
  Pick<EstimateQuery, "rateType"> &
  (
    | { fromAmount: NonNullable<EstimateQuery["fromAmount"]>; toAmount?: never }
    | { toAmount: NonNullable<EstimateQuery["toAmount"]>; fromAmount?: never }
  );
type RangeQuery = Query<"getRange">;
export type RangeRequest = Required<Pick<RangeQuery, "fromCurrency" | "toCurrency">> & Pick<RangeQuery, "rateType">;

/** The webhooks' payloads (what verifyWebhook answers). */
export type WebhookEvent =
  | Schemas["OrderWebhookEvent"]
  | Schemas["OrderActionWebhookEvent"]
  | Schemas["WithdrawalWebhookEvent"]
  | Schemas["TestWebhookEvent"];

/** The states an order never leaves. */
export const FINAL_STATES: readonly OrderState[] = ["finished", "failed"];
export const isFinalState = (s: OrderState): boolean => FINAL_STATES.includes(s);
