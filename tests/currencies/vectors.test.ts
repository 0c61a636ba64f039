// Real mainnet vectors per family (with their sources, see lib/currencies/vectors.ts):
// accepted; every single-character substitution in the checksummed part rejected (checksum
// families); testnet / wrong-network encodings rejected. Every test stands alone (no counts
// carried from one test to the next).
import { describe, expect, it } from "vitest";
import { rsDecode } from "../../lib/currencies/families/ardor";
import { FAMILY_MAP, getFamily } from "../../lib/currencies/families/index";
import { listCurrencies } from "../../lib/currencies/index";
import { singleCharVariants, variantSpec } from "../../lib/currencies/variants";
import { VECTORS, WRONG_NETWORK } from "../../lib/currencies/vectors";

const usedFamilies = [...new Set(listCurrencies().map((c) => c.family))];
const isMixedCase = (s: string) => s !== s.toLowerCase() && s !== s.toUpperCase();

describe("address vectors", () => {
  it("every vector family exists", () => {
    for (const fam of Object.keys(VECTORS)) expect(FAMILY_MAP.has(fam), fam).toBe(true);
  });

  for (const [fam, v] of Object.entries(VECTORS)) {
    const family = getFamily(fam)!;
    describe(fam, () => {
      for (const x of v.valid) {
        it(`accepts ${x.address} (${x.kind}: ${x.source})`, () => {
          expect(family.validate(x.address)).toBe(true);
        });
      }
      // An EIP-55-style family only has a checksum when the input is mixed case; its single-case
      // vectors have no checksum to exercise.
      const checksummed = v.valid.filter((x) => family.level === "checksum" || (family.level !== "format" && isMixedCase(x.address)));
      if (checksummed.length) {
        it("rejects every single-character substitution of each checksummed vector", () => {
          const accepted: string[] = [];
          for (const x of checksummed) {
            const spec = variantSpec(fam, x.address);
            expect(spec, `no variant spec for ${fam}`).not.toBeNull();
            let n = 0;
            for (const m of singleCharVariants(x.address, spec!)) {
              n++;
              if (family.validate(m)) accepted.push(`${x.address} -> ${m}`);
            }
            // at least one substitution per checksummed character position
            expect(n, x.address).toBeGreaterThanOrEqual(x.address.length - spec!.from - 8);
          }
          expect(accepted).toEqual([]);
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

  it("every family used by a currency has at least two real mainnet vectors, and none is recalled from memory", () => {
    const short = usedFamilies.filter((fam) => (VECTORS[fam]?.valid.length ?? 0) < 2);
    expect(short).toEqual([]);
    const recalled = Object.values(VECTORS).flatMap((v) => [...v.valid, ...v.testnet].filter((x) => x.kind === "recalled"));
    expect(recalled).toEqual([]);
  });

  it("the families issue 14 named have at least two sourced (file-read) vectors", () => {
    for (const fam of ["evm:xdc", "arweave", "kadena", "siacoin", "bech32:band", "monero", "mina", "starknet", "flow", "ardor"]) {
      expect(VECTORS[fam].valid.filter((x) => x.kind === "sourced").length, fam).toBeGreaterThanOrEqual(2);
    }
  });

  it("every family with a currency has a testnet vector or says why it has none", () => {
    for (const fam of usedFamilies) {
      const v = VECTORS[fam];
      expect(v.testnet.length > 0 || !!v.noTestnet, fam).toBe(true);
    }
  });

  it("the Ardor Reed-Solomon decoder gives the account ids NRS's own tests pair with the addresses", () => {
    // ardornxtgroup/ardor html/www/js/test/test.nrs.util.js @945248cd: "sender":"14454664023893707109"
    // with "senderRS":"ARDOR-V4D7-D3XW-JX9Z-EAC8K"; and {entity: 5873880488492319831} rendered as
    // ARDOR-XKA2-7VJU-VZSY-7R335, where that literal is a JS number, i.e. the double 5873880488492320000.
    expect(rsDecode("V4D7-D3XW-JX9Z-EAC8K")).toBe(14454664023893707109n);
    expect(rsDecode("XKA2-7VJU-VZSY-7R335")).toBe(5873880488492320000n);
    // test.nxtaddress.js: one character off is "invalid address"
    expect(getFamily("ardor")!.validate("ARDOR-XK4R-7VJU-6EQG-7R336")).toBe(false);
  });
});
