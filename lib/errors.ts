import "server-only";

// The one error type of the service layer: a stable code, a message for people, and
// JSON-safe details. Codes are part of the public contract: add, never rename. How a code
// is answered over HTTP (its status) is decided at the HTTP edge, in lib/http/errors.ts.

export const ERROR_CODES = [
  "INVALID_REQUEST",
  "MALFORMED_JSON",
  "INVALID_IDEMPOTENCY_KEY",
  "INVALID_API_KEY",
  "API_KEY_REQUIRED",
  "UNAUTHORIZED",
  "NOT_FOUND",
  "ORDER_NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "IDEMPOTENCY_CONFLICT",
  "INVALID_ORDER_STATE",
  "PAYLOAD_TOO_LARGE",
  "INVALID_ADDRESS",
  "INVALID_EXTRA_ID",
  "INVALID_REFUND_ADDRESS",
  "INVALID_REFUND_EXTRA_ID",
  "UNKNOWN_CURRENCY",
  "CURRENCY_UNAVAILABLE",
  "SAME_CURRENCY",
  "INVALID_AMOUNT",
  "AMOUNT_TOO_LOW",
  "AMOUNT_TOO_HIGH",
  "INVALID_MARKUP",
  "RATE_LIMITED",
  "DAILY_LIMIT_EXCEEDED",
  "INTERNAL_ERROR",
  "ENGINE_UNAVAILABLE",
  "INVALID_RATE_ID",
  "RATE_EXPIRED",
  "INVALID_SIGNATURE",
  "WITHDRAWAL_NOT_FOUND",
  "CONFIRMATION_USED",
  "QUOTE_EXPIRED",
  "INSUFFICIENT_BALANCE",
  "INVALID_WITHDRAWAL_STATE",
  "WITHDRAWAL_TOO_SMALL",
  "PAYOUT_ASSET_UNAVAILABLE",
  "UNSUPPORTED_MEDIA_TYPE",
  "RATE_ID_USED",
  "FORBIDDEN_ORIGIN",
  "PAYOUT_CHAIN_UNAVAILABLE",
  "PRICE_UNAVAILABLE",
  "API_KEY_LIMIT_REACHED",
  // A refund address given after creation (lib/orders/set-refund-address.ts): the order's can no
  // longer change / its provider cannot take one.
  "REFUND_ADDRESS_LOCKED",
  "REFUND_ADDRESS_UNSUPPORTED",
  // A suspended reseller's API key, on every v1 endpoint (issue 52, docs/api.md).
  "RESELLER_SUSPENDED",
  // The console (issue 52): the operator's role does not allow the action; the last admin cannot go.
  "FORBIDDEN",
  "LAST_ADMIN",
  // A webhook redelivery to an endpoint that is disabled (lib/webhooks/redeliver.ts): enable it first.
  "WEBHOOK_ENDPOINT_DISABLED",
  // Teams (issue 54, lib/teams): an invitation's link already used, past its time, revoked by an
  // owner, or never issued; the last owner cannot leave or be demoted; a wallet already in the team.
  "INVITE_USED",
  "INVITE_EXPIRED",
  "INVITE_REVOKED",
  "INVITE_NOT_FOUND",
  "LAST_OWNER",
  "ALREADY_MEMBER",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Codes only the dashboard answers; the v1 API (and its OpenAPI document) never does. */
export const DASHBOARD_ONLY_CODES: readonly ErrorCode[] = [
  "UNAUTHORIZED",
  "INVALID_MARKUP",
  // Withdrawals (lib/withdrawals) are a dashboard feature.
  "INVALID_SIGNATURE",
  "WITHDRAWAL_NOT_FOUND",
  "CONFIRMATION_USED",
  "QUOTE_EXPIRED",
  "INSUFFICIENT_BALANCE",
  "INVALID_WITHDRAWAL_STATE",
  "WITHDRAWAL_TOO_SMALL",
  "PAYOUT_ASSET_UNAVAILABLE",
  "PAYOUT_CHAIN_UNAVAILABLE",
  // A withdrawal quote without a fresh live price (lib/prices).
  "PRICE_UNAVAILABLE",
  // Keys are made on the dashboard and by the operator's CLI (lib/keys: MAX_ACTIVE_KEYS).
  "API_KEY_LIMIT_REACHED",
  // The operator's console (lib/operators).
  "FORBIDDEN",
  "LAST_ADMIN",
  // Webhooks are managed on the dashboard (lib/webhooks/redeliver.ts).
  "WEBHOOK_ENDPOINT_DISABLED",
  // Teams (lib/teams) live on the dashboard.
  "INVITE_USED",
  "INVITE_EXPIRED",
  "INVITE_REVOKED",
  "INVITE_NOT_FOUND",
  "LAST_OWNER",
  "ALREADY_MEMBER",
];

export class AppError extends Error {
  readonly code: ErrorCode;
  /** Extra members returned inside `error` (e.g. minAmount); must be JSON-safe. */
  readonly details?: Record<string, unknown>;
  /** Response headers that belong with this error (Retry-After, Allow, the rate-limit state). */
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, headers?: Record<string, string>) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}
