import "server-only";
import pino from "pino";
import { getConfig } from "@/lib/config";

let logger: pino.Logger | null = null;

/** One JSON logger per process. Never log API keys, signatures or request bodies. */
export function getLogger(): pino.Logger {
  logger ??= pino({ level: getConfig().LOG_LEVEL, base: undefined, redact: ["req.headers['x-api-key']", "*.apiKey", "*.key"] });
  return logger;
}
