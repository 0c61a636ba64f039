import "server-only";
import pino from "pino";
import { getConfig } from "@/lib/config";
import { provide, type Scope, slot } from "@/lib/scope";

export type Logger = pino.Logger;

/**
 * Fields that may hold a secret wherever they appear one level deep (an error's or a
 * request's): our API keys, and the providers' keys, secrets and signatures.
 */
const SECRET_PATHS = [
  "req.headers['x-api-key']",
  "*.apiKey",
  "*.key",
  "*.secret",
  "*.apiSecret",
  "*.headers['x-changenow-api-key']",
  "*.headers['x-sideshift-secret']",
  "*.headers['x-api-key']",
  "*.headers['x-api-sign']",
  "*.headers.authorization",
];

/**
 * A URL with the secrets it may carry in its query replaced: the status page's `t` (the order's
 * secret, /o/<id>?t=..., docs/widgets.md). Any logged URL goes through it (the `url` field's
 * serializer below); keep URLs out of other fields.
 */
export function redactUrl(url: unknown): unknown {
  return typeof url === "string" ? url.replace(/([?&;]t=)[^&#]*/gi, "$1[redacted]") : url;
}

/** A JSON logger at `level` (stdout, or `destination`). Never log API keys, signatures or request bodies. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, base: undefined, redact: SECRET_PATHS, serializers: { url: redactUrl } }, destination);
}

/** The current app's logger (createApp may give one; else stdout at LOG_LEVEL). */
const loggerSlot = slot(() => createLogger(getConfig().LOG_LEVEL));

export function getLogger(): Logger {
  return loggerSlot();
}

/** Gives an app its own logger (createApp({ log })). */
export function provideLogger(scope: Scope, log: Logger): void {
  provide(scope, loggerSlot, log);
}
