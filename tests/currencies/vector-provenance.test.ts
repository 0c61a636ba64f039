// Provenance rules for lib/currencies/vectors.ts: a "sourced" vector names the repository and
// file it was copied from; no address is listed twice in a family; a family's testnet /
// wrong-network list never repeats one of its valid vectors; derived vectors are testnet-only.
import { describe, expect, it } from "vitest";
import { VECTORS } from "../../lib/currencies/vectors";

describe("vector provenance", () => {
  it("every sourced vector names owner/repo and a file (or a spec document)", () => {
    const bad: string[] = [];
    for (const [fam, v] of Object.entries(VECTORS)) {
      for (const x of [...v.valid, ...v.testnet]) {
        if (x.kind !== "sourced") continue;
        // "owner/repo path/to/file" (with an optional "@commit"): a slash-separated repository, a space, a path
        if (!/^[\w.-]+\/[\w.-]+ \S+/.test(x.source)) bad.push(`${fam}: ${x.address} (${x.source})`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("derived vectors are only used as non-mainnet (rejected) vectors", () => {
    for (const [fam, v] of Object.entries(VECTORS)) {
      for (const x of v.valid) expect(x.kind, `${fam}: ${x.address}`).not.toBe("derived");
    }
  });

  it("no address is listed twice in a family, and no testnet vector is also a valid vector", () => {
    for (const [fam, v] of Object.entries(VECTORS)) {
      const valid = v.valid.map((x) => x.address);
      expect(new Set(valid).size, fam).toBe(valid.length);
      const testnet = v.testnet.map((x) => x.address);
      expect(new Set(testnet).size, fam).toBe(testnet.length);
      for (const t of testnet) expect(valid.includes(t), `${fam}: ${t}`).toBe(false);
    }
  });

  it("every source string is non-empty", () => {
    for (const v of Object.values(VECTORS)) for (const x of [...v.valid, ...v.testnet]) expect(x.source.trim().length).toBeGreaterThan(0);
  });
});
