import { describe, expect, it } from "vitest";
import { listCurrencies } from "@/lib/currencies";
import { addressFor, api } from "../support/api";

// Issue 3's HTTP cases: the registry's checks as a client meets them on POST /exchange.
// Vectors and their sources (also in lib/currencies/vectors.ts):
const XRP = "rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf"; // XRPLF/xrpl.js packages/ripple-address-codec/README.md
const BCH = "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a"; // CashAddr spec; Bitcoin-ABC src/qt/test/uritests.cpp
const KSM = "HNZata7iMYWmk5RvZRTiAsSDhV8366zq2YGb3tLH5Upf74F"; // //Alice on Kusama (ss58 prefix 2)

const create = (body: Record<string, unknown>) => api("/exchange", { body: { amount: "0.01", from: "btc", ...body } });

describe("the registry behind POST /exchange", () => {
  it("XRP: a valid address with a destination tag is accepted; one changed character is INVALID_ADDRESS", async () => {
    const ok = await create({ to: "xrp", address: XRP, extraId: "4294967295" });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.payoutExtraId).toBe("4294967295");
    const bad = await create({ to: "xrp", address: "rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpg" });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("INVALID_ADDRESS");
  });

  it("XRP: a destination tag of 4294967296 (2^32) is INVALID_EXTRA_ID", async () => {
    const r = await create({ to: "xrp", address: XRP, extraId: "4294967296" });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("INVALID_EXTRA_ID");
    expect(r.body.error.message).toMatch(/Destination tag/);
  });

  it("BCH: a CashAddr with one changed character is rejected", async () => {
    expect((await create({ to: "bch", address: BCH })).status).toBe(201);
    // Every single-character change within the CashAddr alphabet is caught by its checksum.
    const alphabet = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
    const payload = BCH.slice("bitcoincash:".length);
    for (const i of [0, 7, payload.length - 1]) {
      const c = alphabet[(alphabet.indexOf(payload[i]) + 1) % 32];
      const changed = `bitcoincash:${payload.slice(0, i)}${c}${payload.slice(i + 1)}`;
      const r = await create({ to: "bch", address: changed });
      expect(r.status, changed).toBe(422);
      expect(r.body.error.code).toBe("INVALID_ADDRESS");
    }
  });

  it("a Kusama address is rejected as DOT, and accepted as KSM", async () => {
    const asDot = await create({ to: "dot", address: KSM });
    expect(asDot.status).toBe(422);
    expect(asDot.body.error.code).toBe("INVALID_ADDRESS");
    expect((await create({ to: "ksm", address: KSM })).status).toBe(201);
    expect((await create({ to: "dot", address: addressFor("ksm") })).body.error.code).toBe("INVALID_ADDRESS");
  });

  it("Starknet: an Ethereum address is INVALID_ADDRESS with a message that says it looks like one (issue 14)", async () => {
    // EIP-55 example address (ethereum/EIPs EIPS/eip-55.md), pasted as a STRK payout address
    const r = await create({ to: "strk", address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("INVALID_ADDRESS");
    expect(r.body.error.message).toMatch(/Ethereum/);
    // a real Starknet address (starknet.js test data: the ETH token contract) is accepted
    const ok = await create({ to: "strk", address: "0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7" });
    expect(ok.status, ok.text).toBe(201);
  });

  it("extra IDs: a currency without them rejects one; the refund side is checked against the source currency", async () => {
    expect((await create({ to: "eth", address: addressFor("eth"), extraId: "1" })).body.error.code).toBe("INVALID_EXTRA_ID");
    const fromXrp = await api("/exchange", {
      body: { from: "xrp", to: "btc", amount: "100", address: addressFor("btc"), refundAddress: XRP, refundExtraId: "4294967296" },
    });
    expect(fromXrp.body.error.code).toBe("INVALID_REFUND_EXTRA_ID");
    const refundWrongChain = await api("/exchange", {
      body: { from: "xrp", to: "btc", amount: "100", address: addressFor("btc"), refundAddress: BCH },
    });
    expect(refundWrongChain.body.error.code).toBe("INVALID_REFUND_ADDRESS");
  });

  it("every payinAddress handed out passes its own currency's validator (sampled over the registry)", async () => {
    const { getCurrency, validateAddress } = await import("@/lib/currencies");
    const sources = listCurrencies()
      .filter((c) => c.isAvailable && c.ticker !== "btc")
      .slice(0, 25);
    for (const c of sources) {
      const r = await api("/exchange", { body: { from: c.ticker, to: "btc", amount: c.minAmount, address: addressFor("btc") } });
      expect(r.status, `${c.ticker}: ${r.text}`).toBe(201);
      expect(validateAddress(getCurrency(c.ticker)!, r.body.payinAddress), `${c.ticker} ${r.body.payinAddress}`).toBe(true);
      expect(r.body.payinExtraId === null).toBe(!c.hasExtraId);
    }
  });

  it("GET /currencies lists the whole registry (more than 180), unavailable ones flagged", async () => {
    const r = await api("/currencies");
    expect(r.body.currencies.length).toBe(listCurrencies().length);
    expect(r.body.currencies.length).toBeGreaterThan(180);
    expect(r.body.currencies.find((c: { ticker: string }) => c.ticker === "bnbbep2")).toMatchObject({
      isAvailable: false,
      hasExtraId: true,
    });
    const usdt = r.body.currencies
      .filter((c: { ticker: string }) => c.ticker.startsWith("usdt"))
      .map((c: { network: string }) => c.network);
    expect(new Set(usdt).size).toBe(usdt.length);
    expect(usdt.length).toBeGreaterThanOrEqual(8);
  });
});
