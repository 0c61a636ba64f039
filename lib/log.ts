import pino from "pino";
import { getConfig } from "@/lib/config";

const g = globalThis as unknown as { __resellerLog?: pino.Logger };

/** One JSON logger per process. Never log API keys, signatures or request bodies. */
export function getLogger(): pino.Logger {
  g.__resellerLog ??= pino({ level: getConfig().LOG_LEVEL, base: undefined, redact: ["req.headers['x-api-key']", "*.apiKey", "*.key"] });
  return g.__resellerLog;
}
