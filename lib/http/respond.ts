import "server-only";
import { parse as parseJson } from "lossless-json";
import { AppError } from "@/lib/errors";
import { getLogger } from "@/lib/log";
import { stringifyJson } from "@/lib/money/json-number";
import { errorAnswer } from "./errors";
import type { ApiRequest } from "./request";

const JSON_TYPE = "application/json; charset=utf-8";
/** The API is meant to be callable from browsers too (the Public tier needs no secret). */
const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "RateLimit, RateLimit-Policy, Retry-After, Location, Idempotent-Replayed, ETag, Poll-After",
};

/**
 * A finished v1 answer: status, headers and the encoded body. Plain data rather than a Web
 * Response, so that lib/http/app.ts can write it to the socket in one call (see send()
 * there) and anything else can wrap it in a standard Response.
 */
export interface Reply {
  status: number;
  /** Complete: Content-Length included when there is a body (not for a stream). */
  headers: Record<string, string>;
  body: Uint8Array | null;
  /** A body written as it comes, after the head (Server-Sent Events); body is then null. */
  stream?: ReplyStream;
}

/** Where a streamed body goes: the open response. */
export interface StreamOut {
  /** Writes text as it is (UTF-8). */
  write(text: string): void;
  /** Ends the response. */
  end(): void;
  /** `fn` runs once when the response is over, whoever ended it (the stream, the client, a shutdown). */
  onClose(fn: () => void): void;
}

/**
 * The body of a streamed reply (a Server-Sent Events stream: lib/http/v1/events.ts). The router
 * writes the head as for any reply, then calls start(); when no body can follow (the client went
 * away first, a HEAD request) it calls cancel() instead, so that what the stream holds is released.
 */
export interface ReplyStream {
  start(out: StreamOut): void;
  cancel(): void;
}

/** A streamed answer: the head's headers (no Content-Length), then the stream's body. */
export function streamed(stream: ReplyStream, contentType: string, status = 200, headers: Record<string, string> = {}): Reply {
  const all: Record<string, string> = Object.assign({ "content-type": contentType, "x-content-type-options": "nosniff" }, CORS, headers);
  return { status, headers: all, body: null, stream };
}

/** A reply with no body (204 preflight, 304: these carry no Content-Length). */
export function emptyReply(status: number, headers: Record<string, string>): Reply {
  return { status, headers, body: null };
}

/** A body that is already JSON, encoded once and served many times. */
export class RawJson {
  readonly bytes: Uint8Array;
  constructor(text: string) {
    this.bytes = Buffer.from(text, "utf8");
  }
}

/** Bytes served as they are, under the content type the handler sets (the brand's logo, lib/http/brand.ts). */
export class RawBytes {
  constructor(readonly bytes: Uint8Array) {}
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Reply {
  if (status === 304) return emptyReply(304, { ...CORS, ...headers });
  // Encoded here, with its length, so that send() in app.ts writes these headers as they are
  // (measured: copying them again there, with one more async step, cost ~8% CPU per request).
  const bytes = body instanceof RawJson || body instanceof RawBytes ? body.bytes : Buffer.from(stringifyJson(body), "utf8");
  // Object.assign rather than spreads: on every answer, and V8 builds a spread into a literal property by property.
  const all: Record<string, string> = Object.assign({ "content-type": JSON_TYPE, "x-content-type-options": "nosniff" }, CORS, headers);
  all["content-length"] = String(bytes.byteLength);
  return { status, headers: all, body: bytes };
}

/** The spec's error shape for anything thrown; unknown errors are logged and masked as a 500. */
export function errorReply(e: unknown, headers: Record<string, string> = {}, reqId?: string | null): Reply {
  const a = errorAnswer(e, "the v1 API", reqId);
  return json(a.body, a.status, { ...headers, ...a.headers });
}

/** application/json, with parameters ("; charset=utf-8"), or a +json type (application/merge-patch+json). */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;

/**
 * Whether a body's Content-Type is JSON. A body of another type is refused (415): text/plain,
 * form and multipart bodies are what a cross-site page can send without a CORS preflight, so
 * accepting them would let any page create keyless orders from its visitors' browsers,
 * spending their IP's daily quota. (The body is read first, within the size limit, so that
 * the connection stays usable for the client's next request.)
 */
export function isJsonContentType(header: string | null): boolean {
  if (header === null) return false;
  const semi = header.indexOf(";");
  return JSON_MEDIA_TYPE.test((semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase());
}

/** Reads a JSON body, losslessly, enforcing the size limit while streaming (Content-Length can lie or be absent). */
export async function readJsonBody(req: ApiRequest, maxBytes: number): Promise<unknown> {
  const declared = Number(req.header("content-length") ?? "0");
  if (declared > maxBytes) throw new AppError("PAYLOAD_TOO_LARGE", `The body is larger than ${maxBytes} bytes.`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.hasBody) {
    try {
      for await (const chunk of req.chunks()) {
        size += chunk.byteLength;
        if (size > maxBytes) throw new AppError("PAYLOAD_TOO_LARGE", `The body is larger than ${maxBytes} bytes.`);
        chunks.push(chunk);
      }
    } catch (e) {
      if (e instanceof AppError) throw e;
      // The client went away mid-body: its doing, not a server error (and nobody reads this answer).
      getLogger().debug("client went away before sending its whole request body");
      throw new AppError("INVALID_REQUEST", "The request body was cut off.");
    }
  }
  if (req.hasBody && !isJsonContentType(req.header("content-type")))
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the body as JSON, with Content-Type: application/json.", {
      contentType: (req.header("content-type") ?? "").slice(0, 100),
    });
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") throw new AppError("INVALID_REQUEST", "A JSON body is required.");
  try {
    // Numbers stay exact (LosslessNumber, their text as sent): JSON.parse would turn
    // 9123456789.12345678 into the double 9123456789.123457 before anyone could check it.
    return parseJson(text);
  } catch {
    throw new AppError("MALFORMED_JSON", "The body is not valid JSON.");
  }
}
