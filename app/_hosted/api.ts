// The hosted page's and the widget's calls to their own API (lib/http/hosted.ts): same-origin
// fetches, so the browser sends Sec-Fetch-Site: same-origin. Plain shapes, no server imports.

export interface HostedCurrency {
  ticker: string;
  symbol: string;
  name: string;
  network: string;
  hasExtraId: boolean;
  extraIdName: string | null;
  popular: boolean;
  minAmount: number | string;
  maxAmount: number | string;
}

export interface HostedConfig {
  /** Exactly one names the page: the reseller's page (r, with w as its channel) or a widget (w). */
  r: string | null;
  w: string | null;
  title: string;
  accent: string;
  theme: "light" | "dark";
  defaultFrom: string;
  defaultTo: string;
  defaultAmount: string | null;
  sandbox: boolean;
}

export interface Estimate {
  fromCurrency: string;
  toCurrency: string;
  fromAmount: string;
  toAmount: string;
  rate: string;
  fee: string;
  rateType: "floating" | "fixed";
  validUntil: string;
  minAmount: string;
  maxAmount: string;
}

export interface AddressCheck {
  valid: boolean;
  reason: string | null;
  extraIdValid: boolean | null;
  extraIdName: string | null;
}

interface Side {
  ticker: string;
  symbol: string;
  name: string;
  network: string;
  extraIdName: string | null;
}

export interface OrderView {
  id: string;
  status: "waiting" | "confirming" | "exchanging" | "sending" | "finished" | "failed";
  payinAddress: string;
  payinExtraId: string | null;
  payoutAddress: string;
  payoutExtraId: string | null;
  fromCurrency: string;
  toCurrency: string;
  fromAmount: number | string;
  toAmount: number | string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  amountReceived: number | string | null;
  payinHash: string | null;
  payoutHash: string | null;
  refundAddress: string | null;
  refund: { state: string; amount: number | string | null; hash: string | null } | null;
  failureReason: string | null;
  history?: { status: string; at: string }[];
  rateType: "floating" | "fixed";
  fixedUntil: string | null;
  from: Side;
  to: Side;
  links: { payin: string | null; payout: string | null; refund: string | null };
  depositQr: string | null;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

async function call<T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T | null; headers: Headers }> {
  const res = await fetch(`/api/hosted${path}`, { ...init, credentials: "omit", cache: "no-store" });
  if (res.status === 304) return { status: 304, body: null, headers: res.headers };
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    const e = body?.error ?? {};
    throw new ApiError(res.status, e.code ?? "ERROR", e.message ?? `The request failed (${res.status}).`, e);
  }
  return { status: res.status, body: body as T, headers: res.headers };
}

const qs = (o: Record<string, string | null | undefined>) =>
  new URLSearchParams(Object.entries(o).filter((e): e is [string, string] => e[1] != null && e[1] !== "")).toString();

export const getEstimate = (cfg: HostedConfig, p: { from: string; to: string; amount?: string; toAmount?: string; rateType: string }) =>
  call<Estimate>(`/estimate?${qs({ r: cfg.r, w: cfg.w, ...p })}`).then((r) => r.body as Estimate);

export const checkAddress = (currency: string, address: string, extraId?: string) =>
  call<AddressCheck>(`/address?${qs({ currency, address, extraId })}`).then((r) => r.body as AddressCheck);

export const createOrder = (cfg: HostedConfig, body: Record<string, unknown>) =>
  call<{ token: string; statusPath: string; order: OrderView }>("/orders", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ ...(cfg.r ? { r: cfg.r } : {}), ...(cfg.w ? { w: cfg.w } : {}), ...body }),
  }).then((r) => r.body as { token: string; statusPath: string; order: OrderView });

export async function getOrder(id: string, token: string, etag: string | null) {
  const r = await call<OrderView>(`/orders/${encodeURIComponent(id)}`, {
    headers: { "X-Order-Token": token, ...(etag ? { "If-None-Match": etag } : {}) },
  });
  return { order: r.body, etag: r.headers.get("etag"), pollAfter: Number(r.headers.get("poll-after") ?? "0") || null };
}

export const sandboxDeposit = (id: string, token: string) =>
  call<OrderView>(`/orders/${encodeURIComponent(id)}/deposit`, { method: "POST", headers: { "X-Order-Token": token } }).then(
    (r) => r.body as OrderView,
  );

/** An amount as the API gave it (an exact decimal of at most 15 significant digits) as text, never in exponent form. */
export const fmt = (x: number | string | null | undefined): string =>
  x == null ? "" : typeof x === "number" ? x.toLocaleString("en-US", { useGrouping: false, maximumSignificantDigits: 15 }) : x;
