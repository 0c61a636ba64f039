// The one error type of the service layer. Every code has exactly one HTTP status, here.
// Codes are part of the public contract: add, never rename.

export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  MALFORMED_JSON: 400,
  INVALID_IDEMPOTENCY_KEY: 400,
  INVALID_API_KEY: 401,
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
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Codes only the dashboard answers; the v1 API (and its OpenAPI document) never does. */
export const DASHBOARD_ONLY_CODES: readonly ErrorCode[] = ["UNAUTHORIZED", "INVALID_MARKUP"];

// The process holds two bundles of lib/ (esbuild's for the API, Next's for the dashboard)
// that share singletons through globalThis, so an AppError may come from the other
// bundle's class: recognise it by a registry-wide symbol, not by instanceof.
const BRAND = Symbol.for("reseller-exchange.AppError");

export class AppError extends Error {
  readonly [BRAND] = true;
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra members returned inside `error` (e.g. minAmount); must be JSON-safe. */
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, headers?: Record<string, string>) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = details;
    this.headers = headers;
  }
}

export const isAppError = (e: unknown): e is AppError =>
  typeof e === "object" && e !== null && (e as { [BRAND]?: boolean })[BRAND] === true;
