import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWidget } from "@/lib/channels/channels";
import type { Db } from "@/lib/db/client";
import { hostedPage } from "@/lib/hosted/hosted";
import {
  checkLogo,
  checkLogoBase64,
  getBrand,
  getBrandLogo,
  getBrandSettings,
  LOGO_MAX_BYTES,
  NO_BRAND,
  parseBrandInput,
  parseSupport,
  safeLink,
  setBrand,
} from "@/lib/resellers/brand";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { JPEG_8x6, PNG_8x6, pngOfSize, pngSized, SVG_AS_PNG, WEBP_8x6 } from "../support/images";
import { tempSqlite } from "../support/sqlite-db";

// The brand's rules (lib/resellers/brand.ts): what a reseller may put on the pages its end
// users see. Links are https (http only on a .onion host), never javascript: or data:; the
// support contact is an email address, a Telegram handle or an https link; the logo is a whole
// PNG, JPEG or WebP of at most 64 KB and 512x512 px by its own bytes.

const ONION = `${"a".repeat(56)}.onion`;
const valid = { name: "Acme", accent: "", support: "", terms: "", logo: { keep: true } } as const;
const issuesOf = (input: object) => {
  const r = parseBrandInput({ ...valid, ...input });
  return r.ok ? [] : r.issues.map((i) => `${i.field}:${i.reason}`);
};

describe("the brand's fields", () => {
  it("display name: 1 to 60 characters, trimmed, no control or bidi characters; empty is none", () => {
    const ok = parseBrandInput({ ...valid, name: "  Acme Exchange  " });
    expect(ok.ok && ok.brand.displayName).toBe("Acme Exchange");
    const none = parseBrandInput({ ...valid, name: "   " });
    expect(none.ok && none.brand.displayName).toBe(null);
    expect(issuesOf({ name: "x".repeat(60) })).toEqual([]);
    expect(issuesOf({ name: "é".repeat(60) })).toEqual([]);
    for (const name of ["x".repeat(61), "Acme\nExchange", "Acme\u0000", "Acme\u202eemcA", "\u200b\u200b"])
      expect(issuesOf({ name }), JSON.stringify(name)).toEqual(["name:NAME_INVALID"]);
  });

  it("accent: #rrggbb, stored lower-case; empty is the default", () => {
    const ok = parseBrandInput({ ...valid, accent: "#F59E0B" });
    expect(ok.ok && ok.brand.accent).toBe("#f59e0b");
    for (const accent of ["f59e0b", "#f59e0", "#f59e0bb", "red", "#ggggggg", "url(x)"])
      expect(issuesOf({ accent }), accent).toEqual(["accent:ACCENT_INVALID"]);
  });

  it("support: email, Telegram (@name or t.me link) or an https URL, each stored with its kind", () => {
    expect(parseSupport("help@acme.example")).toEqual({ ok: true, kind: "email", value: "help@acme.example" });
    expect(parseSupport("mailto:help@acme.example")).toEqual({ ok: true, kind: "email", value: "help@acme.example" });
    expect(parseSupport("@acme_support")).toEqual({ ok: true, kind: "telegram", value: "acme_support" });
    expect(parseSupport("https://t.me/acme_support")).toEqual({ ok: true, kind: "telegram", value: "acme_support" });
    expect(parseSupport("https://acme.example/help?x=1")).toEqual({ ok: true, kind: "url", value: "https://acme.example/help?x=1" });
    expect(parseSupport(`http://${ONION}/support`)).toEqual({ ok: true, kind: "url", value: `http://${ONION}/support` });
  });

  it("support: refuses script and data URLs, plain http, mail header injection, bad handles and overlong text", () => {
    const refused = [
      "javascript:alert(1)",
      "JavaScript:alert(1)//@x.com",
      "data:text/html,<script>alert(1)</script>",
      "http://acme.example/help",
      "ftp://acme.example/",
      "help@acme.example\r\nBcc: all@victims.example",
      "mailto:help@acme.example?bcc=all@victims.example",
      "help@acme.example%0ABcc:x@y.example",
      "@ab",
      "@acme-support",
      "https://t.me/ab",
      "https://user:pw@acme.example/",
      "https://localhost/",
      "java\tscript:alert(1)",
      `${"a".repeat(300)}@acme.example`,
      `https://acme.example/${"a".repeat(400)}`,
      "not a contact",
    ];
    for (const s of refused) expect(parseSupport(s).ok, JSON.stringify(s)).toBe(false);
    expect(issuesOf({ support: "javascript:alert(1)" })).toEqual(["support:SUPPORT_INVALID"]);
    // Space around the text is trimmed off (a form field's), never stored.
    expect(parseSupport(" help@acme.example\n")).toEqual({ ok: true, kind: "email", value: "help@acme.example" });
  });

  it("terms: https, or http on a .onion host, only", () => {
    expect(safeLink("https://acme.example/terms")).toEqual({ ok: true, url: "https://acme.example/terms" });
    expect(safeLink(`http://${ONION}/terms`)).toEqual({ ok: true, url: `http://${ONION}/terms` });
    expect(safeLink(`https://www.${ONION}/terms`).ok).toBe(true);
    for (const terms of [
      "http://acme.example/terms",
      "http://fake.onion/terms",
      `http://${ONION}.evil.example/`,
      "javascript:alert(1)",
      "data:text/html;base64,PHNjcmlwdD4=",
      "//acme.example/terms",
      "acme.example/terms",
      "https://acme.example/te rms",
      `https://acme.example/${"a".repeat(2000)}`,
    ])
      expect(issuesOf({ terms }), terms).toEqual(["terms:TERMS_INVALID"]);
  });

  it("a field of the wrong type, or no object at all, is refused as invalid, never a crash", () => {
    expect(issuesOf({ name: 5, accent: [], support: {}, terms: null, logo: "x" })).toEqual([
      "name:NAME_INVALID",
      "accent:ACCENT_INVALID",
      "support:SUPPORT_INVALID",
      "terms:TERMS_INVALID",
      "logo:LOGO_CORRUPT",
    ]);
    expect(parseBrandInput(null).ok).toBe(false);
    expect(parseBrandInput("x").ok).toBe(false);
  });
});

describe("the logo", () => {
  it("takes a real PNG, JPEG and WebP, typed by their bytes, with their size and hash", () => {
    for (const [bytes, type] of [
      [PNG_8x6, "image/png"],
      [JPEG_8x6, "image/jpeg"],
      [WEBP_8x6, "image/webp"],
    ] as const) {
      const r = checkLogo(bytes);
      expect(r.ok, type).toBe(true);
      if (r.ok) expect(r.logo).toMatchObject({ type, width: 8, height: 6, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    }
    expect(checkLogo(pngSized(512, 512)).ok).toBe(true);
    expect(checkLogo(pngOfSize(LOGO_MAX_BYTES)).ok).toBe(true);
  });

  const reasonOf = (b: Uint8Array) => {
    const r = checkLogo(b);
    return r.ok ? "accepted" : r.issue.reason;
  };

  it("refuses an SVG (named .png or not), a GIF, and text", () => {
    expect(reasonOf(SVG_AS_PNG)).toBe("LOGO_TYPE");
    expect(reasonOf(Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1"))).toBe("LOGO_TYPE");
    expect(reasonOf(Buffer.from("hello"))).toBe("LOGO_TYPE");
    expect(reasonOf(new Uint8Array())).toBe("LOGO_TYPE");
  });

  it("refuses images over 512 px on either side, as their header says", () => {
    expect(reasonOf(pngSized(4000, 4000))).toBe("LOGO_DIMENSIONS");
    expect(reasonOf(pngSized(513, 10))).toBe("LOGO_DIMENSIONS");
    expect(reasonOf(pngSized(10, 513))).toBe("LOGO_DIMENSIONS");
    expect(reasonOf(pngSized(0, 10))).toBe("LOGO_CORRUPT");
  });

  it("refuses files over 64 KB", () => {
    expect(reasonOf(pngOfSize(70 * 1024))).toBe("LOGO_TOO_LARGE");
    expect(reasonOf(pngOfSize(LOGO_MAX_BYTES + 1))).toBe("LOGO_TOO_LARGE");
  });

  it("refuses truncated files and magic bytes with no image behind them", () => {
    for (const b of [PNG_8x6, JPEG_8x6, WEBP_8x6]) {
      expect(reasonOf(b.subarray(0, b.length - 1))).toBe("LOGO_CORRUPT");
      expect(reasonOf(b.subarray(0, Math.floor(b.length / 2)))).toBe("LOGO_CORRUPT");
      expect(reasonOf(b.subarray(0, 12))).toBe("LOGO_CORRUPT");
    }
    // A PNG's magic bytes before a JPEG's body: the two checks disagree.
    expect(reasonOf(Buffer.concat([PNG_8x6.subarray(0, 8), JPEG_8x6]))).toBe("LOGO_CORRUPT");
  });

  it("checks the base64 text's length before decoding it, and refuses text that is not base64", () => {
    expect(checkLogoBase64(PNG_8x6.toString("base64")).ok).toBe(true);
    const big = checkLogoBase64("A".repeat(200_000));
    expect(!big.ok && big.issue.reason).toBe("LOGO_TOO_LARGE");
    const bad = checkLogoBase64("not base64!");
    expect(!bad.ok && bad.issue.reason).toBe("LOGO_CORRUPT");
  });
});

describe("the brand stored and read", () => {
  let db: Db;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ db, cleanup } = await tempSqlite()));
  afterAll(() => cleanup());
  const reseller = () => getOrCreateReseller(db, { walletAddress: `0x${crypto.randomUUID().replaceAll("-", "").padEnd(40, "0")}` });

  it("a reseller without a brand has none; one saved is read back for the pages, without the logo's bytes", async () => {
    const r = await reseller();
    expect(await getBrand(db, { resellerId: r.id })).toEqual(NO_BRAND);
    const saved = await setBrand(db, {
      resellerId: r.id,
      input: {
        name: " Acme ",
        accent: "#F59E0B",
        support: "@acme_support",
        terms: "https://acme.example/terms",
        logo: { base64: PNG_8x6.toString("base64") },
      },
    });
    const logo = await getBrandLogo(db, { resellerId: r.id });
    expect(logo?.type).toBe("image/png");
    expect(Buffer.from(logo!.bytes).equals(PNG_8x6)).toBe(true);
    const brand = await getBrand(db, { resellerId: r.id });
    expect(brand).toEqual({
      name: "Acme",
      accent: "#f59e0b",
      logo: { url: `/api/hosted/brand/${r.id}/logo?v=${logo!.hash}`, width: 8, height: 6 },
      support: { kind: "telegram", value: "@acme_support", href: "https://t.me/acme_support" },
      terms: "https://acme.example/terms",
    });
    expect(saved).toEqual({ ...brand, logoInfo: { type: "image/png", bytes: PNG_8x6.length } });

    // Kept, replaced, removed.
    await setBrand(db, { resellerId: r.id, input: { ...valid, name: "Acme 2", logo: { keep: true } } });
    expect((await getBrand(db, { resellerId: r.id })).logo?.url).toBe(brand.logo?.url);
    await setBrand(db, { resellerId: r.id, input: { ...valid, logo: { base64: WEBP_8x6.toString("base64") } } });
    expect((await getBrandLogo(db, { resellerId: r.id }))?.type).toBe("image/webp");
    expect((await getBrand(db, { resellerId: r.id })).logo?.url).not.toBe(brand.logo?.url);
    await setBrand(db, { resellerId: r.id, input: { ...valid, logo: { remove: true } } });
    expect(await getBrandLogo(db, { resellerId: r.id })).toBe(null);
    expect(await getBrandSettings(db, { resellerId: r.id })).toMatchObject({ name: "Acme", logo: null, logoInfo: null, support: null });
  });

  it("a refused write changes nothing and names every refused field with its reason", async () => {
    const r = await reseller();
    await setBrand(db, { resellerId: r.id, input: { ...valid, name: "Kept" } });
    const e = await setBrand(db, {
      resellerId: r.id,
      input: { ...valid, name: "x".repeat(61), support: "javascript:alert(1)", logo: { base64: SVG_AS_PNG.toString("base64") } },
    }).catch((x) => x);
    expect(e).toMatchObject({ code: "INVALID_REQUEST", details: { field: "name", reason: "NAME_INVALID" } });
    expect(e.details.fieldIssues.map((i: { field: string; reason: string }) => `${i.field}:${i.reason}`)).toEqual([
      "name:NAME_INVALID",
      "support:SUPPORT_INVALID",
      "logo:LOGO_TYPE",
    ]);
    expect((await getBrand(db, { resellerId: r.id })).name).toBe("Kept");
  });

  it("the hosted page gets the brand; its accent is the page's, and a widget's own accent wins on the widget", async () => {
    const r = await reseller();
    await setBrand(db, { resellerId: r.id, input: { ...valid, name: "Acme", accent: "#f59e0b" } });
    const page = await hostedPage(db, { reseller: r.id });
    expect(page).toMatchObject({ title: "Acme", accent: "#f59e0b", brand: { name: "Acme", accent: "#f59e0b" } });
    const w = await createWidget(db, { resellerId: r.id, input: { name: "Blog", accent: "#10b981" } });
    expect(await hostedPage(db, { widget: w.id })).toMatchObject({ accent: "#10b981", brand: { name: "Acme" } });
    const plain = await reseller();
    expect(await hostedPage(db, { reseller: plain.id })).toMatchObject({ title: "Exchange", accent: "#4f46e5", brand: NO_BRAND });
  });
});
