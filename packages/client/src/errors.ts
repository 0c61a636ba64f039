import type { ErrorCode } from "./types.js";

/**
 * The code of a ResellerApiError: one of the API's codes, or UNEXPECTED_RESPONSE, the
 * client's own, for an answer not in the API's error shape (a proxy's HTML 502, say).
 * Codes are added to the API, never renamed: an older client may meet a code its type does
 * not list; `status` still says what kind of failure it is.
 */
export type ResellerErrorCode = ErrorCode | "UNEXPECTED_RESPONSE";

/** An error answer of the API: `{"error":{"code","message",...details}}` with its HTTP status. */
export class ResellerApiError extends Error {
  override readonly name = "ResellerApiError";
  /** The HTTP status (400..599). */
  readonly status: number;
  readonly code: ResellerErrorCode;
  /** The error's other members: minAmount/maxAmount (AMOUNT_TOO_LOW/HIGH), issues (INVALID_REQUEST), retryAfter... */
  readonly details: Readonly<Record<string, unknown>>;
  /** The answer's X-Request-Id: quote it to support. */
  readonly requestId: string | null;
  /** Seconds to wait before trying again (429: Retry-After, or the body's retryAfter); null when not said. */
  readonly retryAfter: number | null;

  constructor(init: {
    status: number;
    code: ResellerErrorCode;
    message: string;
    details?: Record<string, unknown>;
    requestId?: string | null;
    retryAfter?: number | null;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? {};
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
  }

  /** Whether this error has one of `codes` (narrows `code`). */
  is<C extends ResellerErrorCode>(...codes: C[]): this is ResellerApiError & { code: C } {
    return (codes as ResellerErrorCode[]).includes(this.code);
  }
}

/** Whether `e` is an API error, and (with codes) one of those: `if (isApiError(e, "RATE_LIMITED")) e.retryAfter`. */
export function isApiError<C extends ResellerErrorCode = ResellerErrorCode>(
  e: unknown,
  ...codes: C[]
): e is ResellerApiError & { code: C } {
  return e instanceof ResellerApiError && (codes.length === 0 || e.is(...codes));
}

/** The seconds of a Retry-After header: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The API error a non-2xx answer stands for (its body already read as text). */
export function apiErrorOf(res: Response, text: string): ResellerApiError {
  const requestId = res.headers.get("x-request-id");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  const err = (body as { error?: unknown } | null)?.error;
  const headerRetry = parseRetryAfter(res.headers.get("retry-after"));
  if (err && typeof err === "object" && typeof (err as { code?: unknown }).code === "string") {
    const { code, message, ...details } = err as { code: string; message?: unknown } & Record<string, unknown>;
    const bodyRetry = typeof details.retryAfter === "number" ? details.retryAfter : null;
    return new ResellerApiError({
      status: res.status,
      code: code as ResellerErrorCode,
      message: typeof message === "string" ? message : code,
      details,
      requestId,
      retryAfter: headerRetry ?? bodyRetry,
    });
  }
  return new ResellerApiError({
    status: res.status,
    code: "UNEXPECTED_RESPONSE",
    message: `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}: not an API error answer`,
    details: { body: text.slice(0, 500) },
    requestId,
    retryAfter: headerRetry,
  });
}
