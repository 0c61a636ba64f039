import { describe, expect, it } from "vitest";
import { DEFAULT_CALLBACK, safeCallbackPath } from "@/lib/auth/callback";

// The one rule for ?callbackUrl= (issue 48): the sign-in page applies it in the browser and
// next-auth's redirect callback on the server. Each form below is what a query string can carry
// after decoding; "home" means DEFAULT_CALLBACK.
const APP = "http://localhost:3000";
const home = DEFAULT_CALLBACK;

const TABLE: [string, unknown, string][] = [
  // Accepted: paths of this app, as the parsed URL gives them.
  ["a dashboard path", "/dashboard/keys", "/dashboard/keys"],
  ["a path with a query and a fragment", "/dashboard/orders?status=waiting#top", "/dashboard/orders?status=waiting#top"],
  ["the root", "/", "/"],
  ["dot segments that stay on the app", "/dashboard/../dashboard/keys", "/dashboard/keys"],
  ["an encoded slash stays encoded", "/%2F%2Fevil.example", "/%2F%2Fevil.example"],
  ["an encoded tab stays encoded", "/%09/evil.example", "/%09/evil.example"],
  ["an absolute URL of this very origin (next-auth's form)", `${APP}/dashboard/settings`, "/dashboard/settings"],
  ["this origin alone", APP, "/"],
  ["a non-ASCII path is percent-encoded", "/dashboard/ключи", "/dashboard/%D0%BA%D0%BB%D1%8E%D1%87%D0%B8"],
  // Refused: the reported forms (the parser drops tab, LF, CR and reads "\" as "/").
  ["tab between the slashes", "/\t/127.0.0.1:3874/phish", home],
  ["LF between the slashes", "/\n/127.0.0.1:3874/phish", home],
  ["CR between the slashes", "/\r/127.0.0.1:3874/phish", home],
  ["tab then backslash", "/\t\\127.0.0.1:3874/phish", home],
  ["a leading tab", "\t//evil.example", home],
  ["protocol-relative", "//evil.example/x", home],
  ["slash backslash", "/\\evil.example", home],
  ["backslash backslash", "\\\\evil.example", home],
  ["a backslash inside a path", "/dashboard\\..\\..\\x", home],
  ["dot segments that normalise to //host", "/.//evil.example", home],
  ["parent segments that normalise to //host", "/a/..//evil.example/x", home],
  ["three slashes", "///evil.example", home],
  // Refused: other origins and schemes.
  ["another origin", "https://evil.example/dashboard", home],
  ["this host on another scheme", "https://localhost:3000/dashboard", home],
  ["this host on another port", "http://localhost:3001/dashboard", home],
  ["this origin as a prefix of another host", "http://localhost:3000.evil.example/", home],
  ["user info before another host", "http://localhost:3000@evil.example/", home],
  ["user info on this origin", "http://user:pass@localhost:3000/dashboard", home],
  ["an IDN look-alike host", "http://lоcalhost:3000/dashboard", home],
  ["a punycode host", "http://xn--lcalhost-7gg:3000/dashboard", home],
  ["javascript:", "javascript:alert(document.cookie)", home],
  ["javascript: with a leading slash trick", "/javascript:alert(1)", "/javascript:alert(1)"],
  ["data:", "data:text/html,<script>alert(1)</script>", home],
  ["a relative path without a slash", "dashboard", home],
  ["a query alone", "?x=1", home],
  ["a leading space", " /dashboard", home],
  ["a NUL", "/dash\u0000board", home],
  ["DEL", "/dash\u007fboard", home],
  ["too long", `/${"a".repeat(3000)}`, home],
  ["empty", "", home],
  ["absent", null, home],
  ["not a string", ["/dashboard"], home],
];

describe("safeCallbackPath", () => {
  it("has at least 30 forms in its table", () => expect(TABLE.length).toBeGreaterThanOrEqual(30));

  it.each(TABLE)("%s", (_, raw, expected) => {
    expect(safeCallbackPath(raw, APP)).toBe(expected);
  });

  it("never returns anything a browser would resolve off this origin", () => {
    for (const [, raw] of TABLE) {
      const out = safeCallbackPath(raw, APP);
      expect(new URL(out, APP).origin).toBe(APP);
      expect(out.startsWith("/") && !out.startsWith("//")).toBe(true);
    }
  });

  it("an unusable app origin gives the default", () => {
    expect(safeCallbackPath("/dashboard", "not a url")).toBe(home);
  });
});
