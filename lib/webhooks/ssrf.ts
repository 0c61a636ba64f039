import "server-only";
import dns from "node:dns";
import net from "node:net";
import ipaddr from "ipaddr.js";
import { AppError } from "@/lib/errors";

// Webhook URLs are chosen by resellers, so the server must not be made to call its own
// network: only public unicast addresses are called, unless the operator allows everything
// (WEBHOOK_ALLOW_PRIVATE). The check runs on the address the connection actually uses (a
// lookup hook), so a name that resolves elsewhere at delivery time (DNS rebinding) is caught too.
//
// Which ranges are special comes from ipaddr.js (maintained, follows the IANA special-purpose
// registries) rather than a list of our own: anything it does not call "unicast" is refused
// (loopback, private, link-local, CGNAT, unique-local, multicast, broadcast, 0.0.0.0/8,
// documentation, benchmarking, ...), and so is IPv6 outside 2000::/3, the only space IANA
// has allocated for global unicast.
//
// IPv6 forms that carry an IPv4 address, decided one by one:
// - IPv4-mapped ::ffff:0:0/96 and NAT64 64:ff9b::/96 are judged as the IPv4 address they carry:
//   the kernel connects a mapped address to the IPv4 host itself, and on an IPv6-only network
//   DNS64 answers 64:ff9b::<IPv4> for every IPv4-only receiver, so refusing them would cut
//   those receivers off; a NAT64 address of 127.0.0.1 reaches what 127.0.0.1 reaches.
// - Refused whatever they carry: IPv4-compatible ::/96 (deprecated by RFC 4291), SIIT
//   IPv4-translated ::ffff:0:0:0/96 (only meaningful inside a translator), local-use NAT64
//   64:ff9b:1::/48 (the operator's own translator; where the IPv4 sits depends on its prefix
//   length, so it cannot be read from the address), 6to4 2002::/16 (relays deprecated by
//   RFC 7526) and Teredo 2001::/32 (servers long shut down). No DNS answer for a real receiver
//   is one of these, and each can lead a tunnel or translator to the IPv4 inside.
//   The refusal names the IPv4 address carried, where the address says it.

const GLOBAL_UNICAST: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse("2000::"), 3];
const NAT64_WELL_KNOWN: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse("64:ff9b::"), 96];
const IPV4_COMPATIBLE: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse("::"), 96];

const LABELS: Record<string, string> = {
  linkLocal: "link-local",
  carrierGradeNat: "carrier-grade NAT",
  uniqueLocal: "unique local",
  reserved: "reserved or documentation",
  deprecatedSiteLocal: "site-local",
  as112v6: "as112",
  orchid2: "ORCHIDv2",
  deprecatedOrchid: "ORCHID",
};

/** The IPv4 address in two 16-bit parts of an IPv6 address, optionally XORed (Teredo's client). */
const ipv4In = (parts: number[], at: number, xor = 0) =>
  new ipaddr.IPv4([(parts[at] ^ xor) >> 8, (parts[at] ^ xor) & 0xff, (parts[at + 1] ^ xor) >> 8, (parts[at + 1] ^ xor) & 0xff]).toString();

/** The IPv4 address's range when it is not public, else null. */
function ipv4NotPublic(ip: string): string | null {
  const range = ipaddr.IPv4.parse(ip).range();
  return range === "unicast" ? null : (LABELS[range] ?? range);
}

/** A transition form refused whatever it carries: its name, and the IPv4 it is for where the address says. */
function refusedForm(ip: ipaddr.IPv6): [string, string | null] | null {
  const p = ip.parts;
  switch (ip.range()) {
    case "rfc6145":
      return ["an IPv4-translated", ipv4In(p, 6)];
    case "rfc6052": // the well-known /96 was judged before: this is the local-use 64:ff9b:1::/48
      return ["a local-use NAT64", null];
    case "6to4":
      return ["a 6to4", ipv4In(p, 1)];
    case "teredo":
      return ["a Teredo", `server ${ipv4In(p, 2)}, client ${ipv4In(p, 6, 0xffff)}`];
    case "unicast":
      return ip.match(IPV4_COMPATIBLE) ? ["an IPv4-compatible", ipv4In(p, 6)] : null;
    default:
      return null;
  }
}

function ipv6Reason(address: string, ip: ipaddr.IPv6): string | null {
  const range = ip.range();
  const judged = range === "ipv4Mapped" ? "an IPv4-mapped" : ip.match(NAT64_WELL_KNOWN) ? "a NAT64" : null;
  if (judged) {
    const v4 = ipv4In(ip.parts, 6);
    const why = ipv4NotPublic(v4);
    return why ? `${address} is ${judged} address for ${v4}, which is not a public address (${why})` : null;
  }
  const refused = refusedForm(ip);
  if (refused) return `${address} is ${refused[0]} address${refused[1] ? ` (for ${refused[1]})` : ""}, which webhooks are not sent to`;
  if (range !== "unicast") return `${address} is not a public address (${LABELS[range] ?? range})`;
  if (!ip.match(GLOBAL_UNICAST)) return `${address} is not a public address (outside 2000::/3)`;
  return null;
}

/**
 * Reads an IPv6 address as the kernel does. ipaddr.js reads "::1.2.3.4" as ::ffff:1.2.3.4 (an
 * old notation it supports), whereas it is ::102:304, IPv4-compatible: the WHATWG URL parser
 * rewrites it in hex groups, which ipaddr.js reads as written. A zone ("%eth0") does not change
 * the range, and the URL parser refuses one, so it is dropped.
 */
const parseIPv6 = (address: string) => ipaddr.IPv6.parse(new URL(`http://[${address.replace(/%.*$/, "")}]`).hostname.slice(1, -1));

/** Why an address may not be called, or null when it may. */
export function privateAddressReason(address: string): string | null {
  // Node's strict parser first: ipaddr.js would also read forms such as "0x7f.1".
  const family = net.isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  if (family === 4) {
    const why = ipv4NotPublic(address);
    return why ? `${address} is not a public address (${why})` : null;
  }
  return ipv6Reason(address, parseIPv6(address));
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
    // "localhost." is the same name as "localhost" (the root's dot).
    const host = url.hostname.replace(/^\[|\]$/g, "").replace(/\.+$/, "");
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
