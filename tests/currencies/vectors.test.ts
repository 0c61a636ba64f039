// Real mainnet vectors per family (with their sources, see lib/currencies/vectors.ts):
// accepted; every single-character substitution in the checksummed part rejected (checksum
// families); testnet / wrong-network encodings rejected.
import { describe, expect, it } from "vitest";
import { FAMILY_MAP, getFamily } from "../../lib/currencies/families/index";
import { listCurrencies } from "../../lib/currencies/index";
import { singleCharVariants, variantSpec } from "../../lib/currencies/variants";
import { VECTORS, WRONG_NETWORK } from "../../lib/currencies/vectors";

const usedFamilies = new Set(listCurrencies().map((c) => c.family));
let variantsRun = 0;

describe("address vectors", () => {
  it("every vector family exists", () => {
    for (const fam of Object.keys(VECTORS)) expect(FAMILY_MAP.has(fam), fam).toBe(true);
  });

  for (const [fam, v] of Object.entries(VECTORS)) {
    const family = getFamily(fam)!;
    describe(fam, () => {
      if (!v.valid.length && !v.testnet.length) {
        it("has no sourced vectors yet (gap listed in the report); generated addresses still validate", () => {
          expect(family.validate(family.generate((n) => new Uint8Array(n).fill(7)))).toBe(true);
        });
      }
      for (const x of v.valid) {
        it(`accepts ${x.address} (${x.kind}: ${x.source})`, () => {
          expect(family.validate(x.address)).toBe(true);
        });
      }
      if (family.level !== "format" && v.valid.length) {
        it("rejects every single-character substitution of each valid vector", () => {
          let n = 0;
          const accepted: string[] = [];
          for (const x of v.valid) {
            const spec = variantSpec(fam, x.address);
            expect(spec, `no variant spec for ${fam}`).not.toBeNull();
            for (const m of singleCharVariants(x.address, spec!)) {
              n++;
              if (family.validate(m)) accepted.push(`${x.address} -> ${m}`);
            }
          }
          variantsRun += n;
          expect(accepted).toEqual([]);
          if (v.valid.length) expect(n).toBeGreaterThan(0);
        });
      }
      for (const x of v.testnet) {
        it(`rejects non-mainnet ${x.address} (${x.kind}: ${x.source})`, () => {
          expect(family.validate(x.address)).toBe(false);
        });
      }
    });
  }

  it("rejects wrong-network addresses", () => {
    for (const w of WRONG_NETWORK) expect(getFamily(w.family)!.validate(w.address), w.note).toBe(false);
  });

  it("ran a substantial number of substitution variants", () => {
    // computed by the tests above (they run first in file order)
    expect(variantsRun).toBeGreaterThan(100_000);
  });

  it("every family used by a currency has vectors or is explicitly listed without", () => {
    for (const fam of usedFamilies) expect(VECTORS[fam], fam).toBeDefined();
  });

  it("checksum families with a currency have at least two real mainnet vectors (known gaps listed)", () => {
    const KNOWN_GAPS = new Set(
      Object.entries(VECTORS)
        .filter(([, v]) => v.valid.length < 2)
        .map(([k]) => k),
    );
    for (const fam of usedFamilies) {
      const v = VECTORS[fam];
      if (v.valid.length >= 2) continue;
      expect(KNOWN_GAPS.has(fam), `${fam} has ${v.valid.length} vectors`).toBe(true);
    }
  });

  it("every non-format family with a testnet form has a testnet vector", () => {
    for (const [fam, v] of Object.entries(VECTORS)) {
      if (!usedFamilies.has(fam)) continue;
      expect(v.testnet.length > 0 || !!v.noTestnet, fam).toBe(true);
    }
  });
});
