import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWidget } from "@/lib/channels/channels";
import { getCurrency, listCurrencies } from "@/lib/currencies";
import type { Db } from "@/lib/db/client";
import { checkAddress, explorerTxUrl, hostedCurrencies, hostedPage } from "@/lib/hosted/hosted";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { addressFor } from "../support/api";
import { tempSqlite } from "../support/sqlite-db";

let db: Db;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ db, cleanup } = await tempSqlite()));
afterAll(() => cleanup());

describe("the hosted page's service", () => {
  it("lists the available currencies, the popular ones first in their order, each with its network", () => {
    const list = hostedCurrencies();
    expect(list.slice(0, 5).map((c) => c.ticker)).toEqual(["btc", "eth", "usdterc20", "usdttrc20", "usdc"]);
    const firstOther = list.findIndex((c) => !c.popular);
    expect(list.slice(firstOther).every((c) => !c.popular)).toBe(true);
    expect(list.length).toBe(listCurrencies().filter((c) => c.isAvailable).length);
    for (const c of list) expect(c.network).toBe(getCurrency(c.ticker)!.network);
    // The rest by name: searchable by ticker, name and network on the page.
    const rest = list.slice(firstOther).map((c) => c.name);
    expect(rest).toEqual([...rest].sort((a, b) => a.localeCompare(b)));
  });

  it("checks an address as it is typed, with the registry's reason", () => {
    expect(checkAddress({ currency: "eth", address: addressFor("eth") })).toMatchObject({ valid: true, reason: null, extraIdName: null });
    expect(checkAddress({ currency: "eth", address: "" })).toMatchObject({ valid: false, reason: null });
    expect(checkAddress({ currency: "btc", address: addressFor("eth") }).reason).toMatch(/not a valid Bitcoin/);
    expect(checkAddress({ currency: "xrp", address: addressFor("xrp"), extraId: "123" })).toMatchObject({
      valid: true,
      extraIdValid: true,
    });
    expect(() => checkAddress({ currency: "nope", address: "x" })).toThrow("Unknown currency");
  });

  it("links hashes to an explorer of the currency's network, and nothing else", () => {
    expect(explorerTxUrl(getCurrency("usdttrc20"), "ab".repeat(32))).toBe(`https://tronscan.org/#/transaction/${"ab".repeat(32)}`);
    for (const bad of ["javascript:alert(1)", "abc", "a/../b".repeat(3), null]) expect(explorerTxUrl(getCurrency("btc"), bad)).toBeNull();
    expect(explorerTxUrl(getCurrency("xch"), "ab".repeat(32))).toBeNull(); // no explorer known: the hash is shown unlinked
  });

  it("a page's settings: the widget's look and defaults, the referral page's own; never a key or secret", async () => {
    const r = await getOrCreateReseller(db, { walletAddress: `0x${"ef".repeat(20)}` });
    const w = await createWidget(db, {
      resellerId: r.id,
      input: { name: "Dark", theme: "dark", accent: "#112233", defaultFrom: "xmr", defaultTo: "btc", defaultAmount: "1.5" },
    });
    expect(await hostedPage(db, { widget: w.id })).toEqual({
      r: null,
      w: w.id,
      title: "Dark",
      accent: "#112233",
      theme: "dark",
      defaultFrom: "xmr",
      defaultTo: "btc",
      defaultAmount: "1.5",
      // No brand set (lib/resellers/brand.ts; tests/resellers/brand.test.ts).
      brand: { name: null, logo: null, accent: null, support: null, terms: null },
      sandbox: true,
      // Not suspended by the operator (issue 52; tests/http/reseller-suspension.test.ts).
      suspended: false,
    });
    expect(await hostedPage(db, { reseller: r.id, widget: w.id })).toMatchObject({ r: r.id, w: w.id });
    expect(await hostedPage(db, { reseller: r.id })).toMatchObject({
      r: r.id,
      w: null,
      title: "Exchange",
      theme: "light",
      defaultFrom: "btc",
      defaultTo: "eth",
    });
  });
});
