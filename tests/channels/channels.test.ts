import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createWidget,
  MAX_WIDGETS,
  parseChannel,
  resolveHostedChannel,
  setKeyMarkup,
  setWidgetEnabled,
  updateWidget,
  widgetFrameAncestors,
} from "@/lib/channels/channels";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { authenticateApiKey, createApiKey, revokeApiKey } from "@/lib/keys/api-keys";
import { getOrCreateReseller, revokeReseller, setMarkup } from "@/lib/resellers/resellers";
import { withSettings } from "../support/settings";
import { tempSqlite } from "../support/sqlite-db";

let db: Db;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ db, cleanup } = await tempSqlite()));
afterAll(() => cleanup());

const code = async (p: Promise<unknown>) => {
  try {
    await p;
    return null;
  } catch (e) {
    return e instanceof AppError ? e.code : String(e);
  }
};

let walletN = 0;
const reseller = () => getOrCreateReseller(db, { walletAddress: `0x${(++walletN).toString(16).padStart(40, "0")}` });

describe("channels", () => {
  it("a channel string reads back as its type and id; anything else is no channel", () => {
    expect(parseChannel("key:3yQe8h")).toEqual({ type: "key", id: "3yQe8h" });
    expect(parseChannel("widget:wgAbc")).toEqual({ type: "widget", id: "wgAbc" });
    expect(parseChannel("page")).toEqual({ type: "page", id: null });
    for (const bad of [null, "", "key:", "key:0OIl", "wallet:abc", "page:x", "KEY:abc"]) expect(parseChannel(bad)).toBeNull();
  });

  it("a key's own markup overrides the reseller's at once, within the cap; null goes back to the reseller's", async () => {
    const r = await reseller();
    await setMarkup(db, { resellerId: r.id, markupBps: 150 });
    const { key, apiKey } = await createApiKey(db, { resellerId: r.id, name: "site" });
    expect((await authenticateApiKey(db, key)).markupBps).toBe(150);
    await setKeyMarkup(db, { resellerId: r.id, keyId: apiKey.id, markupBps: 320 });
    expect((await authenticateApiKey(db, key)).markupBps).toBe(320);
    await setKeyMarkup(db, { resellerId: r.id, keyId: apiKey.id, markupBps: 0 });
    expect((await authenticateApiKey(db, key)).markupBps).toBe(0);
    for (const bad of [1001, -1, 1.5, Number.NaN])
      expect(await code(setKeyMarkup(db, { resellerId: r.id, keyId: apiKey.id, markupBps: bad }))).toBe("INVALID_MARKUP");
    await setKeyMarkup(db, { resellerId: r.id, keyId: apiKey.id, markupBps: null });
    expect((await authenticateApiKey(db, key)).markupBps).toBe(150);
    // Another reseller's key, or a revoked one, is not found.
    const other = await reseller();
    expect(await code(setKeyMarkup(db, { resellerId: other.id, keyId: apiKey.id, markupBps: 10 }))).toBe("NOT_FOUND");
    await revokeApiKey(db, { resellerId: r.id, keyId: apiKey.id });
    expect(await code(setKeyMarkup(db, { resellerId: r.id, keyId: apiKey.id, markupBps: 10 }))).toBe("NOT_FOUND");
  });

  it("a key's or widget's markup the enabled providers cannot route is refused as the reseller's is, naming their caps", async () => {
    const r = await reseller();
    const { apiKey } = await createApiKey(db, { resellerId: r.id, name: "site" });
    // SideShift takes at most 200 bps in all, the 25 bps platform fee included: markups up to 175.
    const providers = { ENGINE: "providers", SIDESHIFT_ENABLED: "true", SIDESHIFT_SECRET: "s", SIDESHIFT_AFFILIATE_ID: "a" };
    await withSettings(providers, async () => {
      const refusal = async (p: Promise<unknown>) =>
        p.then(
          () => null,
          (e: AppError) => ({ code: e.code, message: e.message, details: e.details }),
        );
      const expected = {
        code: "INVALID_MARKUP",
        message: expect.stringMatching(/from 0 to 175\..*SideShift up to 175 bps/),
        details: { maxBps: 175 },
      };
      expect(await refusal(setKeyMarkup(db, { resellerId: r.id, keyId: apiKey.id, markupBps: 176 }))).toEqual(expected);
      expect(await refusal(createWidget(db, { resellerId: r.id, input: { name: "w", markupBps: 176 } }))).toEqual(expected);
      expect(await refusal(setMarkup(db, { resellerId: r.id, markupBps: 176 }))).toEqual(expected);
      await setKeyMarkup(db, { resellerId: r.id, keyId: apiKey.id, markupBps: 175 });
      expect((await createWidget(db, { resellerId: r.id, input: { name: "w", markupBps: 175 } })).markupBps).toBe(175);
    });
  });

  it("widgets: settings validated, origins normalised, markup within the cap", async () => {
    const r = await reseller();
    const w = await createWidget(db, {
      resellerId: r.id,
      input: {
        name: " Shop ",
        markupBps: 200,
        allowedOrigins: ["https://Shop.Example.com", "https://shop.example.com/", "http://localhost:8080"],
        accent: "#FF5500",
        theme: "dark",
        defaultFrom: "BTC",
        defaultTo: "xmr",
        defaultAmount: "0.1",
      },
    });
    expect(w).toMatchObject({
      name: "Shop",
      markupBps: 200,
      allowedOrigins: ["https://shop.example.com", "http://localhost:8080"],
      accent: "#ff5500",
      theme: "dark",
      defaultFrom: "btc",
      defaultTo: "xmr",
      defaultAmount: "0.1",
      disabled: false,
    });
    expect(w.id).toMatch(/^wg[1-9A-HJ-NP-Za-km-z]+$/);
    const refused = async (input: Record<string, unknown>) => code(createWidget(db, { resellerId: r.id, input: { name: "x", ...input } }));
    expect(await refused({ allowedOrigins: ["https://shop.example.com/path"] })).toBe("INVALID_REQUEST");
    expect(await refused({ allowedOrigins: ["javascript:alert(1)"] })).toBe("INVALID_REQUEST");
    expect(await refused({ allowedOrigins: ["https://a.example 'unsafe-inline'"] })).toBe("INVALID_REQUEST");
    expect(await refused({ allowedOrigins: ["*"] })).toBe("INVALID_REQUEST");
    expect(await refused({ markupBps: 1001 })).toBe("INVALID_MARKUP");
    expect(await refused({ accent: "red" })).toBe("INVALID_REQUEST");
    expect(await refused({ defaultFrom: "nope" })).toBe("INVALID_REQUEST");
    expect(await refused({ defaultFrom: "btc", defaultTo: "btc" })).toBe("SAME_CURRENCY");
    expect(await refused({ defaultAmount: "1e5" })).toBe("INVALID_REQUEST");
    expect(await refused({ name: "" })).toBe("INVALID_REQUEST");
    const other = await reseller();
    expect(await code(updateWidget(db, { resellerId: other.id, widgetId: w.id, input: { name: "mine" } }))).toBe("NOT_FOUND");
  });

  it("a widget resolves to its reseller, channel and markup (its own, else the reseller's); disabled or revoked is not found", async () => {
    const r = await reseller();
    await setMarkup(db, { resellerId: r.id, markupBps: 90 });
    const own = await createWidget(db, { resellerId: r.id, input: { name: "own", markupBps: 250, allowedOrigins: ["https://a.example"] } });
    const inherits = await createWidget(db, { resellerId: r.id, input: { name: "inherits" } });
    expect(await resolveHostedChannel(db, { widget: own.id })).toMatchObject({
      resellerId: r.id,
      channel: `widget:${own.id}`,
      markupBps: 250,
    });
    expect(await resolveHostedChannel(db, { widget: inherits.id })).toMatchObject({ channel: `widget:${inherits.id}`, markupBps: 90 });
    expect(await resolveHostedChannel(db, { reseller: r.id })).toMatchObject({
      resellerId: r.id,
      channel: "page",
      markupBps: 90,
      widget: null,
    });
    expect(await resolveHostedChannel(db, { reseller: r.id, widget: own.id })).toMatchObject({
      channel: `widget:${own.id}`,
      markupBps: 250,
    });
    // Another reseller's widget on this page, an unknown id, garbage: all the same 404.
    const other = await reseller();
    expect(await code(resolveHostedChannel(db, { reseller: other.id, widget: own.id }))).toBe("NOT_FOUND");
    expect(await code(resolveHostedChannel(db, { widget: "wgNope" }))).toBe("NOT_FOUND");
    expect(await code(resolveHostedChannel(db, { reseller: "../etc" }))).toBe("NOT_FOUND");
    expect(await code(resolveHostedChannel(db, {}))).toBe("NOT_FOUND");

    expect(await widgetFrameAncestors(db, own.id)).toBe("'self' https://a.example");
    expect(await widgetFrameAncestors(db, inherits.id)).toBe("'self'");
    expect(await widgetFrameAncestors(db, "wgNope")).toBe("'none'");
    await setWidgetEnabled(db, { resellerId: r.id, widgetId: own.id, enabled: false });
    expect(await code(resolveHostedChannel(db, { widget: own.id }))).toBe("NOT_FOUND");
    expect(await widgetFrameAncestors(db, own.id)).toBe("'none'");
    await setWidgetEnabled(db, { resellerId: r.id, widgetId: own.id, enabled: true });
    expect((await resolveHostedChannel(db, { widget: own.id })).markupBps).toBe(250);

    await revokeReseller(db, { resellerId: r.id });
    expect(await code(resolveHostedChannel(db, { widget: own.id }))).toBe("NOT_FOUND");
    expect(await code(resolveHostedChannel(db, { reseller: r.id }))).toBe("NOT_FOUND");
  });

  it(`at most ${MAX_WIDGETS} widgets, also when they are created at once`, async () => {
    const r = await getOrCreateReseller(db, { walletAddress: "0x00000000000000000000000000000000000000c5" });
    for (let i = 0; i < MAX_WIDGETS - 2; i++) await createWidget(db, { resellerId: r.id, input: { name: `w${i}` } });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => code(createWidget(db, { resellerId: r.id, input: { name: `at once ${i}` } }))),
    );
    expect(results.filter((c) => c === null)).toHaveLength(2);
    expect(results.filter((c) => c === "INVALID_REQUEST")).toHaveLength(4);
    expect(await db.widget.count({ where: { resellerId: r.id } })).toBe(MAX_WIDGETS);
  });
});
