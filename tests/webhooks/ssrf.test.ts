import { describe, expect, it } from "vitest";
import { checkWebhookUrl, privateAddressReason } from "@/lib/webhooks/ssrf";

describe("webhook address guard", () => {
  it("refuses loopback, private, link-local, CGNAT, unique-local, multicast and unspecified addresses", () => {
    for (const a of [
      "127.0.0.1",
      "127.255.0.9",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "::",
      "fc00::1",
      "fd12:3456::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
    ])
      expect(privateAddressReason(a), a).not.toBeNull();
    for (const a of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "192.169.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])
      expect(privateAddressReason(a), a).toBeNull();
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
});
