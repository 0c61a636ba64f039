import "server-only";
import { LosslessNumber, parse, stringify } from "lossless-json";
import { D, type Dec, parseNumberText } from "@/lib/money/decimal";
import { callName, noteProviderCall } from "./call-stats";

// The one way adapters talk HTTP: a deadline on every request, JSON read with every number
// kept as its exact text (lossless-json; JSON.parse would turn amounts into binary floats),
// and failures turned into a ProviderError whose kind says what the engine should do.
// Nothing here logs or repeats request headers: they carry the providers' secrets.

export type ProviderErrorKind =
  | "amount_too_low"
  | "amount_too_high"
  | "pair_unavailable"
  | "invalid_address"
  | "invalid_refund_address"
  | "invalid_extra_id"
  | "not_found"
  /** Refused for another reason (country blocked, bad parameters): an answer, not an outage. */
  | "rejected"
  | "rate_limited"
  /** Unreachable, timed out, a 5xx, a refused key or an answer we cannot read. */
  | "unavailable";

/** Kinds that say the provider is not usable right now: skip it for a while. */
const OUTAGES: ReadonlySet<ProviderErrorKind> = new Set(["rate_limited", "unavailable"]);

export class ProviderError extends Error {
  readonly provider: string;
  readonly kind: ProviderErrorKind;
  readonly minAmount: Dec | null;
  readonly maxAmount: Dec | null;

  constructor(provider: string, kind: ProviderErrorKind, message: string, limits: { min?: Dec | null; max?: Dec | null } = {}) {
    super(`${provider}: ${message}`);
    this.name = "ProviderError";
    this.provider = provider;
    this.kind = kind;
    this.minAmount = limits.min ?? null;
    this.maxAmount = limits.max ?? null;
  }

  get isOutage(): boolean {
    return OUTAGES.has(this.kind);
  }
}

export const isProviderError = (e: unknown): e is ProviderError => e instanceof ProviderError;

export interface HttpAnswer {
  status: number;
  /** The parsed body (numbers as strings), or null when it is not JSON. */
  body: unknown;
}

/** Where an adapter's requests go, and the longest wait for each. */
export interface Endpoint {
  baseUrl: string;
  timeoutMs: number;
}

export interface ProviderRequest {
  method: "GET" | "POST";
  /** Appended to the base URL. */
  path: string;
  query?: Record<string, string> | null;
  headers: Record<string, string>;
  /** JSON: an object (serialised by jsonBody, decimals exact) or the exact bytes (signed bodies). */
  body?: Record<string, unknown> | string;
  signal?: AbortSignal;
}

/** One request to a provider: base URL + path + query, a JSON content type on POST (unless given). */
export function request(provider: string, at: Endpoint, req: ProviderRequest): Promise<HttpAnswer> {
  const url = new URL(at.baseUrl.replace(/\/$/, "") + req.path);
  for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
  const headers =
    req.method === "POST" && !("content-type" in req.headers) ? { ...req.headers, "content-type": "application/json" } : req.headers;
  const body = req.body === undefined ? undefined : typeof req.body === "string" ? req.body : jsonBody(req.body);
  return httpJson(provider, { method: req.method, url: url.toString(), headers, body, timeoutMs: at.timeoutMs, signal: req.signal });
}

/** A request whose 2xx answer's body is returned; any other answer is thrown as the error `refused` reads from it. */
export async function call(
  provider: string,
  at: Endpoint,
  req: ProviderRequest,
  refused: (answer: HttpAnswer) => ProviderError,
): Promise<unknown> {
  const r = await request(provider, at, req);
  if (r.status >= 200 && r.status < 300) return r.body;
  throw refused(r);
}

async function httpJson(
  provider: string,
  req: { method: "GET" | "POST"; url: string; headers?: Record<string, string>; body?: string; timeoutMs: number; signal?: AbortSignal },
): Promise<HttpAnswer> {
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  const started = performance.now();
  const pathname = new URL(req.url).pathname;
  // Every call is counted for the console's Providers page (lib/providers/call-stats.ts).
  const note = (failure: string | null) =>
    noteProviderCall(provider, { name: callName(req.method, pathname), ms: performance.now() - started, failure });
  let res: Response;
  let text: string;
  try {
    res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal });
    text = await res.text();
  } catch {
    const why = timeout.aborted ? `no answer within ${req.timeoutMs} ms` : req.signal?.aborted ? "request abandoned" : "unreachable";
    const err = new ProviderError(provider, "unavailable", `${req.method} ${pathname}: ${why}`);
    // A request we abandoned ourselves (another provider answered first) says nothing of this one.
    if (!req.signal?.aborted || timeout.aborted) note(err.message);
    throw err;
  }
  let body: unknown = null;
  try {
    body = text ? parse(text, null, (n) => n) : null;
  } catch {
    body = null;
  }
  if (res.status === 429) {
    const err = new ProviderError(provider, "rate_limited", `${pathname}: rate limited (429)`);
    note(err.message);
    throw err;
  }
  if (res.status >= 500 && res.status !== 501) {
    const err = new ProviderError(provider, "unavailable", `${pathname}: HTTP ${res.status} ${messageOf(body)}`.trim());
    note(err.message);
    throw err;
  }
  note(null);
  return { status: res.status, body };
}

/** The human part of an error body, whatever its shape ({message}, {error}, {error:{message}}, {msg}, {errors}). */
export function messageOf(body: unknown): string {
  if (typeof body === "string") return body;
  if (!body || typeof body !== "object") return "";
  const b = body as Record<string, unknown>;
  for (const k of ["message", "msg", "description"]) if (typeof b[k] === "string" && b[k]) return b[k] as string;
  if (typeof b.error === "string") return b.error;
  if (b.error && typeof b.error === "object") return messageOf(b.error);
  if (b.errors && typeof b.errors === "object")
    return Object.values(b.errors as object)
      .map(String)
      .join("; ");
  return "";
}

/** An amount from a provider's answer (its exact text, or a string), or null when absent, not a number, or of an absurd exponent. */
export function decOrNull(v: unknown): Dec | null {
  return typeof v === "string" ? parseNumberText(v.trim()) : null;
}

export function dec(provider: string, v: unknown, field: string): Dec {
  const d = decOrNull(v);
  if (!d) throw new ProviderError(provider, "unavailable", `answer has no readable ${field}`);
  return d;
}

/** A string field, or null when absent, empty or not a string. */
export const str = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);

export const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Serialises a JSON body once (signatures are over these bytes); a decimal becomes a JSON number written exactly. */
export function jsonBody(value: Record<string, unknown>): string {
  const exact = Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, D.isDecimal(v) ? new LosslessNumber((v as Dec).toFixed()) : v]),
  );
  return stringify(exact) ?? "{}";
}
