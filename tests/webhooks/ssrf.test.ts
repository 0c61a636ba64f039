import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { BlockedAddressError, checkWebhookUrl, guardedLookup, privateAddressReason } from "@/lib/webhooks/ssrf";

// One table, judged three ways: privateAddressReason itself, checkWebhookUrl with the address
// as a URL's host (as a reseller registers it), and guardedLookup (as the sender connects:
// Node's dns.lookup answers an IP literal with itself, so no network is involved).
// `embeds`: the IPv4 address an IPv6 form carries, which the refusal must name (this checks
// that it was decoded from the right bits).
type Row = { address: string; allowed: boolean; note: string; embeds?: string };
const refused = (address: string, note: string, embeds?: string): Row => ({ address, allowed: false, note, embeds });
const allowed = (address: string, note: string): Row => ({ address, allowed: true, note });

const TABLE: Row[] = [
  // IPv4
  refused("0.0.0.0", "unspecified"),
  refused("0.1.2.3", "this network, 0.0.0.0/8"),
  refused("127.0.0.1", "loopback"),
  refused("127.255.0.9", "loopback, not only .1"),
  refused("10.1.2.3", "private"),
  refused("172.16.0.1", "private"),
  refused("172.31.255.255", "private, top of 172.16/12"),
  refused("192.168.1.1", "private"),
  refused("169.254.169.254", "link-local (cloud metadata)"),
  refused("100.64.0.1", "carrier-grade NAT"),
  refused("192.0.0.8", "IETF protocol assignments"),
  refused("192.0.2.1", "documentation, TEST-NET-1"),
  refused("198.51.100.7", "documentation, TEST-NET-2"),
  refused("203.0.113.9", "documentation, TEST-NET-3"),
  refused("198.18.0.1", "benchmarking"),
  refused("192.88.99.1", "former 6to4 relay anycast"),
  refused("224.0.0.1", "multicast"),
  refused("239.255.255.250", "multicast (SSDP)"),
  refused("240.0.0.1", "reserved, 240/4"),
  refused("255.255.255.255", "broadcast"),
  allowed("8.8.8.8", "public"),
  allowed("1.1.1.1", "public"),
  allowed("172.32.0.1", "just past 172.16/12"),
  allowed("192.169.0.1", "just past 192.168/16"),
  allowed("100.128.0.1", "just past 100.64/10"),
  allowed("198.20.0.1", "just past 198.18/15"),
  allowed("223.255.255.254", "just below multicast"),
  // IPv6
  refused("::", "unspecified"),
  refused("::1", "loopback"),
  refused("fc00::1", "unique local"),
  refused("fd12:3456::1", "unique local"),
  refused("fe80::1", "link-local"),
  refused("fec0::1", "deprecated site-local"),
  refused("ff02::1", "multicast"),
  refused("100::1", "discard-only"),
  refused("2001:db8::1", "documentation"),
  refused("3fff::1", "documentation (RFC 9637)"),
  refused("2001:2::1", "benchmarking"),
  refused("2001:20::1", "ORCHIDv2"),
  refused("4000::1", "outside global unicast 2000::/3"),
  allowed("2606:4700::1111", "public"),
  allowed("2001:4860:4860::8888", "public, under 2001::/16 but not Teredo or 2001::/23"),
  allowed("2a00:1450:4001:81b::200e", "public"),
  allowed("2620:fe::fe", "public"),
  // IPv4-mapped ::ffff:0:0/96: judged as the IPv4 address
  refused("::ffff:127.0.0.1", "mapped loopback", "127.0.0.1"),
  refused("::ffff:7f00:1", "mapped loopback, hex form", "127.0.0.1"),
  refused("::ffff:10.0.0.1", "mapped private", "10.0.0.1"),
  refused("::ffff:169.254.169.254", "mapped link-local", "169.254.169.254"),
  allowed("::ffff:8.8.8.8", "mapped public"),
  // IPv4-compatible ::/96 (deprecated): refused whatever it embeds
  refused("::7f00:1", "IPv4-compatible loopback", "127.0.0.1"),
  refused("::10.0.0.1", "IPv4-compatible private", "10.0.0.1"),
  refused("::8.8.8.8", "IPv4-compatible public", "8.8.8.8"),
  // SIIT IPv4-translated ::ffff:0:0:0/96: refused whatever it embeds
  refused("::ffff:0:7f00:1", "translated loopback", "127.0.0.1"),
  refused("::ffff:0:10.0.0.1", "translated private", "10.0.0.1"),
  refused("::ffff:0:808:808", "translated public", "8.8.8.8"),
  // NAT64 well-known prefix 64:ff9b::/96: judged as the IPv4 address
  refused("64:ff9b::7f00:1", "NAT64 loopback (issue 27)", "127.0.0.1"),
  refused("64:ff9b::10.0.0.1", "NAT64 private", "10.0.0.1"),
  refused("64:ff9b::a9fe:a9fe", "NAT64 link-local", "169.254.169.254"),
  refused("64:ff9b::c000:201", "NAT64 documentation", "192.0.2.1"),
  allowed("64:ff9b::808:808", "NAT64 public"),
  allowed("64:ff9b::1.1.1.1", "NAT64 public, dotted"),
  // NAT64 local-use 64:ff9b:1::/48: refused whatever it embeds
  refused("64:ff9b:1::7f00:1", "local-use NAT64, /96 layout, loopback"),
  refused("64:ff9b:1:7f00:1::", "local-use NAT64, /48 layout, loopback"),
  refused("64:ff9b:1::808:808", "local-use NAT64, public"),
  // 6to4 2002::/16: refused whatever it embeds
  refused("2002:7f00:1::1", "6to4 loopback", "127.0.0.1"),
  refused("2002:a00:1::1", "6to4 private", "10.0.0.1"),
  refused("2002:808:808::1", "6to4 public", "8.8.8.8"),
  // Teredo 2001::/32: server in bits 32..63, client XOR 0xffffffff in the last 32; refused
  refused("2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo, client loopback", "127.0.0.1"),
  refused("2001:0:4136:e378:8000:63bf:f5ff:fffe", "Teredo, client private", "10.0.0.1"),
  refused("2001:0:4136:e378:8000:63bf:f7f7:f7f7", "Teredo, client public", "8.8.8.8"),
  refused("2001:0:a00:1:8000:63bf:f7f7:f7f7", "Teredo, server private", "10.0.0.1"),
];

const inUrl = (a: string) => (a.includes(":") ? `http://[${a}]/hook` : `http://${a}/hook`);

function lookup(hostname: string, allowPrivate: boolean): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    guardedLookup(allowPrivate)(hostname, { all: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses as unknown as LookupAddress[]),
    ),
  );
}

describe("webhook address guard: the table", () => {
  it("has the size the issue asks for, and each address once", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
    expect(new Set(TABLE.map((r) => r.address)).size).toBe(TABLE.length);
  });

  it.each(TABLE)("privateAddressReason($address): $note", ({ address, allowed, embeds }) => {
    const reason = privateAddressReason(address);
    if (allowed) expect(reason).toBeNull();
    else {
      expect(reason).toMatch(address);
      if (embeds) expect(reason).toContain(embeds);
    }
  });

  it.each(TABLE)("checkWebhookUrl($address): $note", ({ address, allowed }) => {
    const url = inUrl(address);
    if (allowed) expect(checkWebhookUrl(url, false).pathname).toBe("/hook");
    else expect(() => checkWebhookUrl(url, false)).toThrow(expect.objectContaining({ code: "INVALID_REQUEST" }));
    // The operator's switch lets everything through.
    expect(checkWebhookUrl(url, true).pathname).toBe("/hook");
  });

  it.each(TABLE)("guardedLookup($address): $note", async ({ address, allowed }) => {
    if (allowed) expect((await lookup(address, false)).map((a) => a.address)).toEqual([address]);
    else await expect(lookup(address, false)).rejects.toBeInstanceOf(BlockedAddressError);
    expect(await lookup(address, true)).toHaveLength(1);
  });
});

describe("webhook address guard: URLs", () => {
  it("refuses IPv4 written in odd forms, which the URL parser turns into the dotted address", () => {
    for (const [url, meant] of [
      ["http://0x7f.1/", "127.0.0.1"],
      ["http://2130706433/", "127.0.0.1"],
      ["http://017700000001/", "127.0.0.1"],
      ["http://0177.0.0.1/", "127.0.0.1"],
      ["http://127.1/", "127.0.0.1"],
      ["http://127.0.0.1./", "127.0.0.1"],
      ["http://0/", "0.0.0.0"],
      ["http://0xa9.0xfe.0xa9.0xfe/", "169.254.169.254"],
      ["http://3232235777/", "192.168.1.1"],
      ["http://[::ffff:127.0.0.1]/", "127.0.0.1"],
      ["http://[64:ff9b::127.0.0.1]/", "127.0.0.1"],
      ["http://[::127.0.0.1]/", "127.0.0.1"],
    ])
      expect(() => checkWebhookUrl(url, false), url).toThrow(meant);
    expect(checkWebhookUrl("http://0x8.8.8.8/", false).hostname).toBe("8.8.8.8");
    expect(checkWebhookUrl("http://134744072/", false).hostname).toBe("8.8.8.8");
  });

  it("refuses this machine by name, with or without the root's dot", () => {
    for (const url of [
      "http://localhost/",
      "http://LOCALHOST:8080/",
      "http://localhost./",
      "http://api.localhost/",
      "http://api.localhost./",
    ])
      expect(() => checkWebhookUrl(url, false), url).toThrow(/this machine/);
    expect(checkWebhookUrl("http://localhost./", true).hostname).toBe("localhost.");
  });

  it("checks URLs: http(s) only, no credentials, no literal private host unless allowed", () => {
    expect(checkWebhookUrl("https://example.com/hooks", false).hostname).toBe("example.com");
    for (const bad of [
      "ftp://example.com",
      "not a url",
      "https://u:p@example.com/",
      "http://127.0.0.1:8080/",
      "http://localhost/",
      "http://[::1]/",
    ])
      expect(() => checkWebhookUrl(bad, false), bad).toThrow();
    expect(checkWebhookUrl("http://127.0.0.1:8080/", true).port).toBe("8080");
  });

  it("guardedLookup refuses a name that resolves to loopback, and answers in the form asked for", async () => {
    await expect(lookup("localhost", false)).rejects.toBeInstanceOf(BlockedAddressError);
    const one = await new Promise<[string, number]>((resolve, reject) =>
      guardedLookup(false)("8.8.8.8", {}, (err, address, family) => (err ? reject(err) : resolve([address as string, family as number]))),
    );
    expect(one).toEqual(["8.8.8.8", 4]);
  });

  it("a string that is not an IP address is never allowed; a zone does not change the verdict", () => {
    for (const s of ["", "example.com", "0x7f.1", "127.1", "::ffff:127.0.0.1x"]) expect(privateAddressReason(s), s).not.toBeNull();
    expect(privateAddressReason("fe80::1%eth0")).toMatch(/link-local/);
    expect(privateAddressReason("2606:4700::1111%eth0")).toBeNull();
  });

  it("names what a refused address is", () => {
    expect(privateAddressReason("127.0.0.1")).toBe("127.0.0.1 is not a public address (loopback)");
    expect(privateAddressReason("64:ff9b::7f00:1")).toBe(
      "64:ff9b::7f00:1 is a NAT64 address for 127.0.0.1, which is not a public address (loopback)",
    );
    expect(privateAddressReason("2001:0:4136:e378:8000:63bf:80ff:fffe")).toBe(
      "2001:0:4136:e378:8000:63bf:80ff:fffe is a Teredo address (for server 65.54.227.120, client 127.0.0.1), which webhooks are not sent to",
    );
  });
});
