// Verifying the API's webhooks (Standard Webhooks, https://www.standardwebhooks.com/): the
// headers webhook-id, webhook-timestamp (seconds) and webhook-signature (one or more
// "v1,<base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`>", space-separated: two during a
// secret's rotation), the secret "whsec_<base64>" from the dashboard. WebCrypto only
// (crypto.subtle): the same code runs in Node 20, Deno, workers and browsers.
import type { WebhookEvent } from "./types.js";

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

/** Headers as fetch's Request has them, or as Node's IncomingMessage does (lower-case names). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far webhook-timestamp may be from now, either way. Default 300 s (Standard Webhooks' value). */
  toleranceSeconds?: number;
  /** Now (tests). Default: the clock. */
  now?: Date | number;
}

const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | null {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name);
  const rec = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : rec[key];
  return Array.isArray(v) ? v.join(" ") : (v ?? null);
}

function base64ToBytes(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Equal byte strings, in time that depends on their length only. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

const keys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    let raw: Uint8Array<ArrayBuffer>;
    try {
      raw = base64ToBytes(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret);
    } catch {
      throw new WebhookVerificationError("the secret is not whsec_<base64>");
    }
    key = crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(secret, key);
  }
  return key;
}

/**
 * Checks a webhook's signature and age, and answers its payload. `body` is the request's raw
 * body, exactly as received (parsing and serializing it again changes the bytes). Rejects with
 * WebhookVerificationError when a header is missing, the timestamp is outside the tolerance, or
 * no v1 signature matches. Deduplicate on webhook-id: a delivery may come more than once.
 */
export async function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  opts: VerifyOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature");
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError("webhook-timestamp is not a number of seconds");
  const now = opts.now === undefined ? Date.now() : typeof opts.now === "number" ? opts.now : opts.now.getTime();
  const tolerance = opts.toleranceSeconds ?? 300;
  if (Math.abs(Math.floor(now / 1000) - Number(timestamp)) > tolerance)
    throw new WebhookVerificationError("webhook-timestamp is too far from now");

  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const content = new Uint8Array(prefix.length + bytes.length);
  content.set(prefix);
  content.set(bytes, prefix.length);
  const signed = new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), content));
  let matched = false;
  for (const sig of signatures.split(" ")) {
    const comma = sig.indexOf(",");
    if (comma === -1 || sig.slice(0, comma) !== "v1") continue; // another scheme (v1a...): not ours
    let given: Uint8Array;
    try {
      given = base64ToBytes(sig.slice(comma + 1));
    } catch {
      continue;
    }
    // Every candidate is compared (no early exit): the time does not say which one matched.
    matched = constantTimeEqual(signed, given) || matched;
  }
  if (!matched) throw new WebhookVerificationError("no matching signature");
  try {
    return JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("the body is not JSON");
  }
}
