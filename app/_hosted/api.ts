// The hosted page's and the widget's calls to their own API (lib/http/hosted.ts): same-origin
// fetches, so the browser sends Sec-Fetch-Site: same-origin. The requests' and answers' types
// are the API's own, inferred from the zod schemas that validate and document it
// (lib/http/hosted-schemas.ts; served as /api/hosted/openapi.json): no second copy to drift.

import type { AddressCheck, HostedCurrency, HostedEstimate, HostedEstimateQuery, HostedOrderView } from "@/lib/http/hosted-schemas";

import type { PublicBrand } from "@/lib/resellers/brand-types";

export type { AddressCheck, HostedCurrency, HostedEstimate, HostedOrderView };

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
  /** The reseller's brand (name, logo, support contact, terms; lib/resellers/brand.ts). */
  brand: PublicBrand;
  /** Its reseller is suspended by the operator (issue 52): the page says the service is unavailable, with no form. */
  suspended: boolean;
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

/** What the page asks an estimate for; the page's own r and w are added. */
export type EstimateRequest = Omit<HostedEstimateQuery, "r" | "w">;

export const getEstimate = (cfg: HostedConfig, p: EstimateRequest) =>
  call<HostedEstimate>(`/estimate?${qs({ r: cfg.r, w: cfg.w, ...p })}`).then((r) => r.body as HostedEstimate);

export const checkAddress = (currency: string, address: string, extraId?: string) =>
  call<AddressCheck>(`/address?${qs({ currency, address, extraId })}`).then((r) => r.body as AddressCheck);

export async function getOrder(id: string, token: string, etag: string | null) {
  const r = await call<HostedOrderView>(`/orders/${encodeURIComponent(id)}`, {
    headers: { "X-Order-Token": token, ...(etag ? { "If-None-Match": etag } : {}) },
  });
  return { order: r.body, etag: r.headers.get("etag"), pollAfter: Number(r.headers.get("poll-after") ?? "0") || null };
}

/** An amount as the API gave it (an exact decimal of at most 15 significant digits) as text, never in exponent form. */
export const fmt = (x: number | string | null | undefined): string =>
  x == null ? "" : typeof x === "number" ? x.toLocaleString("en-US", { useGrouping: false, maximumSignificantDigits: 15 }) : x;
