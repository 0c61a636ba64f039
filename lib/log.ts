import pino from "pino";
import { getConfig } from "@/lib/config";

const g = globalThis as unknown as { __resellerLog?: pino.Logger };

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
export function getLogger(): pino.Logger {
  g.__resellerLog ??= pino({ level: getConfig().LOG_LEVEL, base: undefined, redact: SECRET_PATHS });
  return g.__resellerLog;
}
