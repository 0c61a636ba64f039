import fs from "node:fs";
import path from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { hostedOrderBrand, hostedPage } from "@/lib/hosted/hosted";
import { getBrand } from "@/lib/resellers/brand";
import { getResellerByWallet } from "@/lib/resellers/resellers";
import { addressFor, api, newIp, testDb } from "../support/api";
import { callServerAction, readDashboard, signInOverHttp } from "../support/dashboard";
import { JPEG_8x6, PNG_8x6, pngOfSize, pngSized, SVG_AS_PNG } from "../support/images";
import { recordSecret } from "../support/secrets";
import { ROOT } from "../support/server";

// The reseller's brand over HTTP (docs/widgets.md, Brand), on the built app, on each database:
// the dashboard's read (GET /dashboard/api/brand) and write (setBrandAction, as Next's client
// calls it), both for the session's reseller alone, every refusal an answer with its stable
// code and the refused fields; and the logo as the app serves it to its hosted pages,
// GET /api/hosted/brand/<reseller>/logo?v=<hash>, with its headers.

const origin = () => inject("baseUrl");
const SAME_ORIGIN = { "sec-fetch-site": "same-origin" };
const b64 = (b: Buffer) => b.toString("base64");
const brandInput = (over: object = {}) => ({ name: "", accent: "", support: "", terms: "", logo: { keep: true }, ...over });

const logoFetch = (p: string, headers: Record<string, string> = SAME_ORIGIN) =>
  fetch(`${origin()}${p}`, { headers: { "x-forwarded-for": newIp(), ...headers } });

describe("the brand on the dashboard and the logo route", () => {
  const walletA = privateKeyToAccount(generatePrivateKey());
  const walletB = privateKeyToAccount(generatePrivateKey());
  let cookieA = "";
  let cookieB = "";
  let idA = "";
  let idB = "";

  beforeAll(async () => {
    const a = await signInOverHttp(origin(), walletA);
    const b = await signInOverHttp(origin(), walletB);
    expect([a.error, b.error]).toEqual([null, null]);
    cookieA = a.cookie;
    cookieB = b.cookie;
    idA = (await getResellerByWallet(testDb(), { walletAddress: walletA.address }))!.id;
    idB = (await getResellerByWallet(testDb(), { walletAddress: walletB.address }))!.id;
  });

  it("without a session: the read is 401 and the write UNAUTHORIZED; nothing is written", async () => {
    const read = await readDashboard(origin(), null, "brand", {});
    expect([read.status, read.body.error.code]).toEqual([401, "UNAUTHORIZED"]);
    for (const cookie of [null, "next-auth.session-token=not-a-session"]) {
      const w = await callServerAction(origin(), cookie, "setBrandAction", [brandInput({ name: "Intruder" })]);
      expect(w.result).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED" } });
    }
  });

  it("a reseller sets its brand with a logo and reads it back; the logo is served with safe, cacheable headers", async () => {
    const empty = await readDashboard(origin(), cookieA, "brand", {});
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ name: null, logo: null, accent: null, support: null, terms: null, logoInfo: null });
    expect(empty.headers.get("cache-control")).toBe("private, no-store");

    const saved = await callServerAction(origin(), cookieA, "setBrandAction", [
      brandInput({
        name: "Acme Exchange",
        accent: "#F59E0B",
        support: "help@acme.example",
        terms: "https://acme.example/terms",
        logo: { base64: b64(PNG_8x6) },
      }),
    ]);
    expect(saved.result.ok, saved.text).toBe(true);
    const read = await readDashboard(origin(), cookieA, "brand", {});
    expect(read.body).toEqual(saved.result.data);
    expect(read.body).toMatchObject({
      name: "Acme Exchange",
      accent: "#f59e0b",
      support: { kind: "email", value: "help@acme.example", href: "mailto:help@acme.example" },
      terms: "https://acme.example/terms",
      logo: { url: expect.stringMatching(new RegExp(`^/api/hosted/brand/${idA}/logo\\?v=[0-9a-f]{64}$`)), width: 8, height: 6 },
      logoInfo: { type: "image/png", bytes: PNG_8x6.length },
    });
    const url: string = read.body.logo.url;
    const hash = url.split("v=")[1];

    const r = await logoFetch(url);
    expect(r.status).toBe(200);
    expect(Buffer.from(await r.arrayBuffer()).equals(PNG_8x6)).toBe(true);
    expect(
      Object.fromEntries([...r.headers].filter(([k]) => !["date", "x-request-id", "connection", "keep-alive"].includes(k))),
    ).toMatchObject({
      "content-type": "image/png",
      "content-length": String(PNG_8x6.length),
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
      "cross-origin-resource-policy": "same-origin",
      "cache-control": "public, max-age=31536000, immutable",
      etag: `"${hash}"`,
    });
    // No CORS: no other site may read it.
    expect(r.headers.get("access-control-allow-origin")).toBe(null);
    // Revalidated by its tag; an old or missing hash gets the current logo, cached only briefly.
    const again = await logoFetch(url, { ...SAME_ORIGIN, "if-none-match": `"${hash}"` });
    expect(again.status).toBe(304);
    for (const stale of [`/api/hosted/brand/${idA}/logo?v=${"0".repeat(64)}`, `/api/hosted/brand/${idA}/logo`]) {
      const s = await logoFetch(stale);
      expect(s.status).toBe(200);
      expect(s.headers.get("cache-control")).toBe("public, max-age=60, must-revalidate");
      expect(s.headers.get("content-type")).toBe("image/png");
    }
    // Another site's page (or a request saying nothing of where it comes from) gets nothing.
    expect((await logoFetch(url, { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await logoFetch(url, {})).status).toBe(403);
  });

  it("404 for a reseller without a logo, an unknown or malformed id, and after the logo is removed", async () => {
    for (const p of [`/api/hosted/brand/${idB}/logo`, "/api/hosted/brand/unknownReseller1/logo", "/api/hosted/brand/0OIl%00/logo"]) {
      const r = await logoFetch(p);
      expect(r.status, p).toBe(404);
      expect((await r.json()).error.code).toBe("NOT_FOUND");
    }
    // A POST is not served.
    const post = await fetch(`${origin()}/api/hosted/brand/${idA}/logo`, {
      method: "POST",
      headers: { ...SAME_ORIGIN, "x-forwarded-for": newIp() },
    });
    expect(post.status).toBe(405);

    const wallet = privateKeyToAccount(generatePrivateKey());
    const { cookie } = await signInOverHttp(origin(), wallet);
    const id = (await getResellerByWallet(testDb(), { walletAddress: wallet.address }))!.id;
    const set = await callServerAction(origin(), cookie, "setBrandAction", [brandInput({ logo: { base64: b64(JPEG_8x6) } })]);
    const url = set.result.data.logo.url as string;
    const jpeg = await logoFetch(url);
    expect([jpeg.status, jpeg.headers.get("content-type")]).toEqual([200, "image/jpeg"]);
    const removed = await callServerAction(origin(), cookie, "setBrandAction", [brandInput({ logo: { remove: true } })]);
    expect(removed.result).toMatchObject({ ok: true, data: { logo: null, logoInfo: null } });
    expect((await logoFetch(url)).status).toBe(404);
    expect(id).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
  });

  it("another reseller's session writes and reads its own brand only", async () => {
    const before = (await readDashboard(origin(), cookieA, "brand", {})).body;
    const b = await callServerAction(origin(), cookieB, "setBrandAction", [brandInput({ name: "B's brand", support: "@b_support_team" })]);
    expect(b.result).toMatchObject({
      ok: true,
      data: { name: "B's brand", support: { kind: "telegram", href: "https://t.me/b_support_team" } },
    });
    // The action takes no reseller id: extra arguments naming A are ignored.
    await callServerAction(origin(), cookieB, "setBrandAction", [brandInput({ name: "B again" }), idA, { resellerId: idA }]);
    expect((await readDashboard(origin(), cookieA, "brand", {})).body).toEqual(before);
    expect((await readDashboard(origin(), cookieB, "brand", {})).body).toMatchObject({ name: "B again", logo: null });
    expect((await readDashboard(origin(), cookieB, "brand", `resellerId=${idA}`)).status).toBe(400);
  });

  it("the hosted page's settings and an order's status page (with its secret only) get the reseller's brand", async () => {
    const brand = await getBrand(testDb(), { resellerId: idA });
    expect(brand.name).toBe("Acme Exchange");
    expect(await hostedPage(testDb(), { reseller: idA })).toMatchObject({ title: "Acme Exchange", accent: "#f59e0b", brand });
    const made = await api("/orders", {
      prefix: "/api/hosted",
      headers: SAME_ORIGIN,
      body: { r: idA, from: "btc", to: "eth", amount: "0.05", address: addressFor("eth") },
    });
    expect(made.status, made.text).toBe(201);
    recordSecret(made.body.token);
    const orderId: string = made.body.order.id;
    expect(await hostedOrderBrand(testDb(), { orderId, token: made.body.token })).toEqual(brand);
    for (const token of [null, "wrong", `${made.body.token}x`])
      await expect(hostedOrderBrand(testDb(), { orderId, token })).rejects.toMatchObject({ code: "ORDER_NOT_FOUND" });
  });

  it("every invalid input is refused with INVALID_REQUEST and the field's reason, never a 500, and changes nothing", async () => {
    const before = (await readDashboard(origin(), cookieA, "brand", {})).body;
    const cases: [input: unknown, field: string | null, reason: string | null][] = [
      [brandInput({ name: "x".repeat(61) }), "name", "NAME_INVALID"],
      [brandInput({ name: "Acme\u202eemcA" }), "name", "NAME_INVALID"],
      [brandInput({ accent: "red" }), "accent", "ACCENT_INVALID"],
      [brandInput({ support: "javascript:alert(1)" }), "support", "SUPPORT_INVALID"],
      [brandInput({ support: "help@acme.example\r\nBcc: x@y.example" }), "support", "SUPPORT_INVALID"],
      [brandInput({ support: "http://acme.example/help" }), "support", "SUPPORT_INVALID"],
      [brandInput({ terms: "data:text/html,<script>alert(1)</script>" }), "terms", "TERMS_INVALID"],
      [brandInput({ logo: { base64: b64(SVG_AS_PNG) } }), "logo", "LOGO_TYPE"],
      [brandInput({ logo: { base64: b64(pngSized(4000, 4000)) } }), "logo", "LOGO_DIMENSIONS"],
      [brandInput({ logo: { base64: b64(pngOfSize(70 * 1024)) } }), "logo", "LOGO_TOO_LARGE"],
      [brandInput({ logo: { base64: b64(PNG_8x6.subarray(0, 40)) } }), "logo", "LOGO_CORRUPT"],
      [brandInput({ logo: { base64: "!!!!" } }), "logo", "LOGO_CORRUPT"],
      // Shapes the form never sends: the generic refusal, same code.
      [brandInput({ logo: { url: "https://evil.example/x.png" } }), null, null],
      [{ name: 1 }, null, null],
      ["x", null, null],
    ];
    for (const [input, field, reason] of cases) {
      const r = await callServerAction(origin(), cookieA, "setBrandAction", [input]);
      expect(r.status).toBe(200);
      expect(r.result.ok, JSON.stringify(input).slice(0, 80)).toBe(false);
      expect(r.result.error.code).toBe("INVALID_REQUEST");
      if (field) expect(r.result.error.issues, String(reason)).toEqual([{ field, reason, message: expect.any(String) }]);
    }
    expect((await readDashboard(origin(), cookieA, "brand", {})).body).toEqual(before);
  });

  it("the Widgets page's actions may carry a logo (96 KB); other pages keep MAX_BODY_BYTES", async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, ".next/server/server-reference-manifest.json"), "utf8"));
    const [actionId] = Object.entries(manifest.node as Record<string, { exportedName: string }>).find(
      ([, e]) => e.exportedName === "setBrandAction",
    )!;
    const post = (page: string, bytes: number) =>
      fetch(`${origin()}${page}`, {
        method: "POST",
        headers: { "next-action": actionId, "content-type": "text/plain;charset=UTF-8", origin: origin(), cookie: cookieA },
        body: JSON.stringify([brandInput({ logo: { base64: "A".repeat(bytes) } })]),
      });
    expect((await post("/dashboard/widgets", 97 * 1024)).status).toBe(413);
    expect((await post("/dashboard/settings", 20 * 1024)).status).toBe(413);
    const within = await post("/dashboard/widgets", 90 * 1024);
    expect(within.status).toBe(200);
    expect(await within.text()).toContain("LOGO_TOO_LARGE");
  });
});
