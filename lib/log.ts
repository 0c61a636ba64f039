import "server-only";
import pino from "pino";
import { getConfig } from "@/lib/config";

export type Logger = pino.Logger;

let logger: Logger | null = null;

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

/** One JSON logger per process. Never log API keys, signatures or request bodies. */
export function getLogger(): Logger {
  logger ??= pino({ level: getConfig().LOG_LEVEL, base: undefined, redact: SECRET_PATHS });
  return logger;
}
