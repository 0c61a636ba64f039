import "server-only";
import type { IncomingMessage } from "node:http";
import proxyAddr from "proxy-addr";
import type { TrustProxy } from "@/lib/config";
import { getLogger } from "@/lib/log";

// The client IP the rate limits key on, one rule for the API and the dashboard. Behind
// proxies, X-Forwarded-For is read from the right: each of the operator's proxies appends the
// address it got the request from, so the client is the first entry no trusted proxy wrote.
// Entries to the left of it are the client's own words and are never believed (the leftmost
// entry is whatever the client chose to send). proxy-addr is Express's implementation.

const compiled = new WeakMap<TrustProxy, (addr: string, i: number) => boolean>();

function trustOf(t: TrustProxy): (addr: string, i: number) => boolean {
  let fn = compiled.get(t);
  if (!fn) {
    if ("hops" in t) {
      const hops = t.hops;
      fn = (_addr, i) => i < hops;
    } else fn = proxyAddr.compile(t.addresses);
    compiled.set(t, fn);
  }
  return fn;
}

/** The settings (so the apps) that said it already: once each. */
const warned = new WeakSet<TrustProxy>();

/**
 * Requests carry X-Forwarded-For while TRUST_PROXY trusts no proxy: behind a proxy every user
 * then has the proxy's address, for the rate limits and for the providers that want the end
 * user's IP (SideShift's x-user-ip and its per-IP limits). Said once per app.
 */
function warnUntrusted(req: IncomingMessage, trust: TrustProxy) {
  if (warned.has(trust) || !req.headers["x-forwarded-for"]) return;
  warned.add(trust);
  getLogger().warn(
    { peer: req.socket.remoteAddress },
    "requests carry X-Forwarded-For but TRUST_PROXY=false: if a proxy is in front, every user has its address (rate limits, and SideShift's x-user-ip); set TRUST_PROXY (docs/operations.md)",
  );
}

export function clientIpOf(req: IncomingMessage, trust: TrustProxy): string {
  if ("hops" in trust && trust.hops === 0) {
    warnUntrusted(req, trust);
    return req.socket.remoteAddress ?? "unknown";
  }
  try {
    return proxyAddr(req, trustOf(trust)) || (req.socket.remoteAddress ?? "unknown");
  } catch {
    return req.socket.remoteAddress ?? "unknown";
  }
}
