import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { parseConfig, providerCommissionCaps } from "@/lib/config";
import { createAdapters } from "@/lib/engine/providers/engine";
import { D } from "@/lib/money/decimal";
import { settingRows } from "@/lib/providers/docs";
import { checkRange, created, mapStatus } from "@/lib/providers/helpers";
import { ProviderError } from "@/lib/providers/http";
import { getMapping } from "@/lib/providers/mapping";
import { PROVIDERS } from "@/lib/providers/registry";
import { FAKES } from "../support/fake-providers";

// A provider is one definition and one line in lib/providers/registry.ts (docs/providers.md,
// Adding a provider). What else it needs is checked here, for every registered provider: a
// fake to test against, and its settings documented in docs/configuration.md's table.

describe("the provider registry", () => {
  const page = fs.readFileSync("docs/configuration.md", "utf8").split("\n");

  it("every registered provider has a fake (tests/support/fake-providers) whose settings enable it", () => {
    const noFake = PROVIDERS.filter((p) => !FAKES[p.name] || !fs.existsSync(`tests/support/fake-providers/${p.name}.ts`));
    expect(
      noFake.map((p) => p.name),
      "registered providers without a fake",
    ).toEqual([]);
    for (const p of PROVIDERS) {
      const fake = FAKES[p.name]!;
      const cfg = parseConfig({ ENGINE: "providers", ...fake.env(fake.create()) });
      expect(
        providerCommissionCaps(cfg).map((c) => c.provider),
        `${p.name}'s fake enables it`,
      ).toEqual([p.name]);
      expect(createAdapters(cfg).map((a) => a.name)).toEqual([p.name]);
    }
  });

  it("every registered provider's settings have their rows in docs/configuration.md (npm run docs:settings writes them)", () => {
    const missing = PROVIDERS.flatMap((p) => settingRows(p).filter((row) => !page.includes(row)));
    expect(missing, "rows missing from docs/configuration.md, or differing from the definitions").toEqual([]);
    const undescribed = PROVIDERS.flatMap((p) => settingRows(p).filter((row) => row.endsWith("|  |")));
    expect(undescribed, "settings without a describe()").toEqual([]);
  });

  it("each definition's adapter, mapping file and asset keys agree", () => {
    for (const p of PROVIDERS) {
      const fake = FAKES[p.name]!;
      const [adapter] = createAdapters(parseConfig({ ENGINE: "providers", ...fake.env(fake.create()) }));
      const mapping = getMapping(p.name);
      expect(mapping.provider).toBe(p.name);
      for (const asset of mapping.assets.values()) expect(adapter.assetKey(asset)).toBe(p.assetKey(asset));
    }
    expect(() => getMapping("nosuch")).toThrow(/no provider nosuch is registered/);
  });

  it("refundAddressLater is set exactly for the providers whose adapter implements setRefundAddress", () => {
    const flagged = PROVIDERS.filter((p) => p.refundAddressLater === true).map((p) => p.name);
    const implemented = PROVIDERS.filter((p) => {
      const fake = FAKES[p.name]!;
      const [adapter] = createAdapters(parseConfig({ ENGINE: "providers", ...fake.env(fake.create()) }));
      return typeof adapter.setRefundAddress === "function";
    }).map((p) => p.name);
    expect(flagged).toEqual(implemented);
    // Of the five documented APIs, SideShift's alone sets a refund address after creation (provider-apis.md).
    expect(flagged).toEqual(["sideshift"]);
  });
});

describe("the adapters' shared helpers", () => {
  it("mapStatus: a status the map does not name is unknown, never final (inherited names included)", () => {
    const map = { done: { state: "finished" as const, reason: null, final: true } };
    expect(mapStatus(map, "done")).toBe(map.done);
    for (const s of ["DONE", "", "toString", "constructor"])
      expect(mapStatus(map, s), s).toEqual({ state: "exchanging", reason: "unknown", final: false });
  });

  it("checkRange refuses outside the range, with the range; the ends are inside", () => {
    const [min, max] = [new D("0.1"), new D("5")];
    const err = (f: () => void) => {
      try {
        f();
      } catch (e) {
        return e as ProviderError;
      }
      return null;
    };
    expect(err(() => checkRange("x", new D("0.1"), min, max))).toBeNull();
    expect(err(() => checkRange("x", new D("5"), min, max))).toBeNull();
    expect(err(() => checkRange("x", new D("99"), null, null))).toBeNull();
    const low = err(() => checkRange("x", new D("0.09"), min, max))!;
    expect([low.kind, low.minAmount?.toString(), low.maxAmount?.toString()]).toEqual(["amount_too_low", "0.1", "5"]);
    const high = err(() => checkRange("x", new D("5.01"), min, max, "too much"))!;
    expect([high.kind, high.message]).toEqual(["amount_too_high", "x: too much"]);
  });

  it("created: every field present, or an outage naming them all", () => {
    expect(created("x", "order", { id: "1", address: "a" })).toEqual({ id: "1", address: "a" });
    expect(() => created("x", "order", { id: "1", token: null, address: "a" })).toThrow(
      new ProviderError("x", "unavailable", "order created without id, token or address"),
    );
    expect(() => created("x", "shift", { id: null, depositAddress: "a" })).toThrow(
      new ProviderError("x", "unavailable", "shift created without id or depositAddress"),
    );
  });
});
