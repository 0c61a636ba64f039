import "server-only";
import type { IncomingMessage } from "node:http";
import proxyAddr from "proxy-addr";
import type { TrustProxy } from "@/lib/config";

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

export function clientIpOf(req: IncomingMessage, trust: TrustProxy): string {
  if ("hops" in trust && trust.hops === 0) return req.socket.remoteAddress ?? "unknown";
  try {
    return proxyAddr(req, trustOf(trust)) || (req.socket.remoteAddress ?? "unknown");
  } catch {
    return req.socket.remoteAddress ?? "unknown";
  }
}
