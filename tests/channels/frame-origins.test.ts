import { describe, expect, it } from "vitest";
import { frameAncestorsOf, isFrameAncestorsValue, parseFrameOrigin } from "@/lib/channels/frame-origins";

// One parser for a widget's listed sites and its page's frame-ancestors (issue 48).

describe("parseFrameOrigin", () => {
  it.each([
    ["https://shop.example", "https://shop.example"],
    ["  HTTPS://Shop.Example/ ", "https://shop.example"],
    ["http://localhost:3871", "http://localhost:3871"],
    ["https://shop.example:443", "https://shop.example"],
    ["http://shop.example:80", "http://shop.example"],
    ["https://shop.example:8443", "https://shop.example:8443"],
    ["https://*.shop.example", "https://*.shop.example"],
    ["http://127.0.0.1:9999", "http://127.0.0.1:9999"],
    ["https://bücher.example", "https://xn--bcher-kva.example"],
  ])("%s is listed as %s", (input, origin) => {
    expect(parseFrameOrigin(input)).toEqual({ ok: true, origin });
  });

  it.each([
    ["https://a_b.shop.example", /underscore/],
    ["http://[::1]:8080", /IPv6/],
    ["https://shop.*.example", /wildcard/],
    ["https://*.*.example", /wildcard/],
    ["*", /https:\/\//],
    ["https://*", /wildcard/],
    ["ftp://shop.example", /https:\/\//],
    ["javascript:alert(1)", /https:\/\//],
    ["https://shop.example/path", /path/],
    ["https://shop.example/?q", /path/],
    ["https://shop.example#x", /path/],
    ["https://user:pw@shop.example", /user/],
    ["https://a.example 'unsafe-inline'", /origin/],
    ["https://shop.example.", /origin/],
    ["https://shop.example:*", /origin/],
  ])("%s is refused (%s)", (input, why) => {
    const r = parseFrameOrigin(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(why);
  });
});

describe("the header", () => {
  it("lists 'self' and every origin it can express, and leaves out alone what it cannot", () => {
    expect(frameAncestorsOf(["https://shop.example", "https://a_b.example", "https://*.shop.example", "HTTPS://X.example"])).toBe(
      "'self' https://shop.example https://*.shop.example",
    );
    expect(frameAncestorsOf([])).toBe("'self'");
  });

  it("is checked again with the same rule (proxy.ts)", () => {
    expect(isFrameAncestorsValue("'none'")).toBe(true);
    expect(isFrameAncestorsValue("'self'")).toBe(true);
    expect(isFrameAncestorsValue("'self' https://*.shop.example http://localhost:3871")).toBe(true);
    expect(isFrameAncestorsValue("'self' *")).toBe(false);
    expect(isFrameAncestorsValue("'self' https://a.example; script-src *")).toBe(false);
    expect(isFrameAncestorsValue("https://a.example")).toBe(false);
    expect(isFrameAncestorsValue("'self' 'unsafe-inline'")).toBe(false);
  });
});
