import "server-only";
import { AppError, type ErrorCode } from "@/lib/errors";
import { getLogger } from "@/lib/log";

// Where errors become HTTP answers (the v1 API, the dashboard's routes and actions): the one
// code -> status table, and the one builder of the spec's body {"error":{"code","message",...}}.

export const HTTP_STATUS: Record<ErrorCode, number> = {
  INVALID_REQUEST: 400,
  MALFORMED_JSON: 400,
  INVALID_IDEMPOTENCY_KEY: 400,
  INVALID_API_KEY: 401,
  API_KEY_REQUIRED: 401,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  ORDER_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IDEMPOTENCY_CONFLICT: 409,
  INVALID_ORDER_STATE: 409,
  PAYLOAD_TOO_LARGE: 413,
  INVALID_ADDRESS: 422,
  INVALID_EXTRA_ID: 422,
  INVALID_REFUND_ADDRESS: 422,
  INVALID_REFUND_EXTRA_ID: 422,
  UNKNOWN_CURRENCY: 422,
  CURRENCY_UNAVAILABLE: 422,
  SAME_CURRENCY: 422,
  INVALID_AMOUNT: 422,
  AMOUNT_TOO_LOW: 422,
  AMOUNT_TOO_HIGH: 422,
  INVALID_MARKUP: 422,
  RATE_LIMITED: 429,
  DAILY_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  ENGINE_UNAVAILABLE: 503,
  INVALID_RATE_ID: 422,
  RATE_EXPIRED: 422,
  INVALID_SIGNATURE: 403,
  WITHDRAWAL_NOT_FOUND: 404,
  CONFIRMATION_USED: 409,
  QUOTE_EXPIRED: 409,
  INSUFFICIENT_BALANCE: 409,
  INVALID_WITHDRAWAL_STATE: 409,
  WITHDRAWAL_TOO_SMALL: 422,
  PAYOUT_ASSET_UNAVAILABLE: 422,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_ID_USED: 409,
  FORBIDDEN_ORIGIN: 403,
  PAYOUT_CHAIN_UNAVAILABLE: 503,
  PRICE_UNAVAILABLE: 503,
  API_KEY_LIMIT_REACHED: 409,
  REFUND_ADDRESS_LOCKED: 409,
  REFUND_ADDRESS_UNSUPPORTED: 409,
  RESELLER_SUSPENDED: 403,
  FORBIDDEN: 403,
  LAST_ADMIN: 409,
  WEBHOOK_ENDPOINT_DISABLED: 409,
  INVITE_USED: 410,
  INVITE_EXPIRED: 410,
  INVITE_REVOKED: 410,
  INVITE_NOT_FOUND: 404,
  LAST_OWNER: 409,
  ALREADY_MEMBER: 409,
};

export interface ErrorBody {
  error: { code: ErrorCode; message: string; [detail: string]: unknown };
}

export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

const MASKED = new AppError("INTERNAL_ERROR", "Something went wrong on our side. It has been logged.");

/**
 * The answer to anything thrown. An AppError answers its own code, message and details; any
 * other error is logged (with `where`) and answered as a masked INTERNAL_ERROR.
 */
export function errorAnswer(e: unknown, where: string, reqId?: string | null): ErrorAnswer {
  if (!(e instanceof AppError)) getLogger().error({ err: e, reqId: reqId ?? undefined }, `unhandled error in ${where}`);
  const err = e instanceof AppError ? e : MASKED;
  return {
    status: HTTP_STATUS[err.code],
    body: { error: { code: err.code, message: err.message, ...(err.details ?? {}) } },
    headers: err.headers ?? {},
  };
}
