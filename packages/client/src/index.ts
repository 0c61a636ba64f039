export type { CallOptions, ClientOptions, CreateOptions, ExchangeRead } from "./client.js";
export { createClient, ResellerClient, randomIdempotencyKey } from "./client.js";
export type { ResellerErrorCode } from "./errors.js";
export { isApiError, ResellerApiError } from "./errors.js";
export type { FollowOptions } from "./follow.js";
export type { RetryOptions } from "./retry.js";
export type { components, operations, paths, webhooks } from "./schema.js";
export type { SseEvent } from "./sse.js";
export { readEvents, SseParser } from "./sse.js";
export type {
  CreateExchangeRequest,
  Currency,
  ErrorBody,
  ErrorCode,
  Estimate,
  EstimateRequest,
  ExchangeOrder,
  OrderState,
  OrderStatus,
  Range,
  RangeRequest,
  RateType,
  RefundAddressRequest,
  SandboxDepositRequest,
  SandboxEngineCalls,
  SandboxEngineRequest,
  WebhookEvent,
} from "./types.js";
export { FINAL_STATES, isFinalState } from "./types.js";
export type { VerifyOptions, WebhookHeaders } from "./webhooks.js";
export { verifyWebhook, WebhookVerificationError } from "./webhooks.js";
