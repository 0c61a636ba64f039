import "server-only";
import dns from "node:dns";
import net from "node:net";
import { AppError } from "@/lib/errors";

// Webhook URLs are chosen by resellers, so the server must not be made to call its own
// network: loopback, private, link-local, carrier-grade NAT, unique-local, multicast and
// unspecified addresses are refused unless the operator allows them (WEBHOOK_ALLOW_PRIVATE).
// The check runs on the address the connection actually uses (a lookup hook), so a name that
// resolves elsewhere at delivery time (DNS rebinding) is caught too.

const blocked = new net.BlockList();
for (const [net4, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  blocked.addSubnet(net4, bits, "ipv4");
for (const [net6, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  blocked.addSubnet(net6, bits, "ipv6");

/** Why an address may not be called, or null when it may. IPv4-mapped IPv6 is judged as its IPv4. */
export function privateAddressReason(address: string): string | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? mapped[1] : address;
  const family = net.isIPv4(ip) ? "ipv4" : net.isIPv6(ip) ? "ipv6" : null;
  if (!family) return `${address} is not an IP address`;
  return blocked.check(ip, family) ? `${address} is a private, loopback or link-local address` : null;
}

/** A URL an endpoint may have: http(s), no credentials; a literal IP or localhost is judged now. */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new AppError("INVALID_REQUEST", "The URL is not valid.", { field: "url" });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new AppError("INVALID_REQUEST", "The URL must start with https:// (or http://).", { field: "url" });
  if (url.username || url.password) throw new AppError("INVALID_REQUEST", "The URL must not carry credentials.", { field: "url" });
  if (raw.length > 2000) throw new AppError("INVALID_REQUEST", "The URL is too long.", { field: "url" });
  if (!allowPrivate) {
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const reason =
      host === "localhost" || host.endsWith(".localhost") ? `${host} is this machine` : net.isIP(host) ? privateAddressReason(host) : null;
    if (reason) throw new AppError("INVALID_REQUEST", `Webhooks cannot be sent there: ${reason}.`, { field: "url" });
  }
  return url;
}

export class BlockedAddressError extends Error {}

/** A dns.lookup for http.request that refuses private addresses (unless allowed). */
export function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses as dns.LookupAddress[];
      if (!allowPrivate)
        for (const a of list) {
          const reason = privateAddressReason(a.address);
          if (reason) return callback(new BlockedAddressError(`refused: ${hostname} resolves to ${reason} (WEBHOOK_ALLOW_PRIVATE)`), "", 0);
        }
      if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}
