import "server-only";
import type { IncomingMessage } from "node:http";

/**
 * The client IP the rate limits key on: the socket's address, or the first X-Forwarded-For
 * hop when TRUST_PROXY says a proxy we control sets it. One rule for the API and the dashboard.
 */
export function clientIpOf(req: IncomingMessage, trustProxy: boolean): string {
  const xff = req.headers["x-forwarded-for"];
  if (trustProxy && typeof xff === "string" && xff) return xff.split(",")[0].trim();
  return req.socket.remoteAddress ?? "unknown";
}
