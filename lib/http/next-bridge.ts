import "server-only";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { AppError } from "@/lib/errors";
import { type Logger, redactUrl } from "@/lib/log";
import { closeAfterAnswer } from "./app";
import { errorAnswer } from "./errors";

// Next behind the process's own server (lib/http/server.ts): every path that is not the
// API's goes to Next's request handler (the dashboard, next-auth), with its body read here
// first under MAX_BODY_BYTES; an API-only instance answers those paths with a 404 instead.

/** Next's request handler, or what stands in for it. */
export type NextHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Answers `e` in the API's error shape, for a request that never reaches the API's router. */
export function answerError(res: ServerResponse, e: AppError, extra: Record<string, string> = {}) {
  const a = errorAnswer(e, "server.ts");
  const body = JSON.stringify(a.body);
  res.writeHead(a.status, {
    ...a.headers,
    ...extra,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

const tooLarge = (max: number) => new AppError("PAYLOAD_TOO_LARGE", `The body is larger than ${max} bytes.`);

/** Refuses a body over the limit (413) without holding more than the limit in memory (see closeAfterAnswer). */
export function refuseTooLarge(req: IncomingMessage, res: ServerResponse, max: number) {
  answerError(res, tooLarge(max));
  closeAfterAnswer(req, res);
}

/**
 * Reads a request body for Next (the dashboard, next-auth), enforcing MAX_BODY_BYTES as it
 * streams in: Next would otherwise buffer any size (a 200 MB sign-in POST was held whole).
 * Returns the body, or null when the request was answered (413) or the client went away
 * (logged at debug: a client's doing, not a server error).
 */
export function readBodyForNext(req: IncomingMessage, res: ServerResponse, max: number, log: Logger): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (v: Buffer | null) => {
      if (settled) return;
      settled = true;
      req.off("data", onData);
      resolve(v);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        refuseTooLarge(req, res, max);
        return settle(null);
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => settle(Buffer.concat(chunks)));
    const gone = () => {
      if (settled || req.complete) return;
      log.debug({ url: redactUrl(req.url), received: size }, "client went away before sending its whole request body");
      settle(null);
    };
    req.once("aborted", gone);
    req.once("error", gone);
    req.once("close", gone);
  });
}

/** A request that replays an already-read body (same socket, method, URL and headers). */
export function replay(req: IncomingMessage, body: Buffer): IncomingMessage {
  const r = new http.IncomingMessage(req.socket);
  r.method = req.method;
  r.url = req.url;
  r.httpVersion = req.httpVersion;
  r.httpVersionMajor = req.httpVersionMajor;
  r.httpVersionMinor = req.httpVersionMinor;
  const headers = { ...req.headers, "content-length": String(body.length) };
  delete headers["transfer-encoding"];
  r.headers = headers;
  r.rawHeaders = Object.entries(headers).flatMap(([k, v]) => (Array.isArray(v) ? v.flatMap((x) => [k, x]) : [k, String(v)]));
  r.complete = true;
  if (body.length) r.push(body);
  r.push(null);
  return r;
}

/** What an API-only instance (SERVE_DASHBOARD=false) answers on every path that is not the API's: 404. */
export function apiOnlyHandler(): NextHandler {
  const notFound = errorAnswer(new AppError("NOT_FOUND", "This instance serves the API only."), "server.ts");
  const body = JSON.stringify(notFound.body);
  return async (_req, res) => void res.writeHead(notFound.status, { "content-type": "application/json; charset=utf-8" }).end(body);
}
