// Differential tests: the registry against an independent, maintained library per address
// family. For each family:
//   1. addresses the library makes are accepted by the registry (and by the library);
//   2. corruptions of them (one character replaced, deleted, inserted or swapped; case flips)
//      get the same verdict from both, except where the registry is deliberately stricter and
//      the reference says why (`stricter`);
//   3. addresses the registry hands out (generateAddress, as the simulated engine does) are
//      valid for the library: 200 draws per family.
// Randomness for 1 and 2 is seeded per family, so a failure reproduces.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { getFamily } from "../../../lib/currencies/families/index";
import type { Random } from "../../../lib/currencies/families/util";
import { FAMILIES, generateAddress, getCurrency } from "../../../lib/currencies/index";
import { variantSpec } from "../../../lib/currencies/variants";
import { DIFFERENTIAL } from "./coverage";

export interface Reference {
  family: string;
  /** what the library calls, for failure messages */
  check: string;
  accepts(address: string): boolean | Promise<boolean>;
  /** one valid mainnet address made by the library (from `random` bytes) */
  make(random: Random): string | Promise<string>;
  /**
   * The registry rejects `address` although the library accepts it, on purpose: the reason.
   * Null when there is no such reason (then any disagreement fails the test).
   */
  stricter?(address: string): string | null;
  /** budgets, lowered only for slow libraries (defaults 300 / 6 / 200) */
  made?: number;
  corruptionsEach?: number;
  drawn?: number;
}

/** Deterministic bytes: SHA-256 of seed and a counter. */
export function seededRandom(seed: string): Random {
  let counter = 0;
  return (n) => {
    const out = new Uint8Array(n);
    for (let off = 0; off < n; off += 32) {
      const block = createHash("sha256").update(`${seed}:${counter++}`).digest();
      out.set(block.subarray(0, Math.min(32, n - off)), off);
    }
    return out;
  };
}

const ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Corruptions of `address`: mostly substitutions inside the checksummed alphabet, plus edits. */
export function corruptions(family: string, address: string, count: number, random: Random): string[] {
  const spec = variantSpec(family, address);
  const from = spec?.from ?? 0;
  const alphabet = spec?.alphabet ?? [...new Set(address)].join("") + ALNUM;
  const out = new Set<string>();
  for (let guard = 0; out.size < count && guard < count * 20; guard++) {
    const [a, b, kind] = random(3);
    const i = from + (((a << 8) | b) % Math.max(1, address.length - from));
    const c = alphabet[(a * 7 + b) % alphabet.length];
    let m: string;
    switch (kind % 8) {
      case 0:
        m = address.slice(0, i) + address.slice(i + 1); // deletion
        break;
      case 1:
        m = address.slice(0, i) + c + address.slice(i); // insertion
        break;
      case 2:
        m = address.slice(0, i) + address[i + 1] + address[i] + address.slice(i + 2); // adjacent swap
        break;
      case 3:
        m = address === address.toLowerCase() ? address.toUpperCase() : address.toLowerCase(); // case flip
        break;
      default:
        m = address.slice(0, i) + c + address.slice(i + 1); // substitution
    }
    if (m !== address && !m.includes("undefined")) out.add(m);
  }
  return [...out];
}

/** A currency of the family (what generateAddress is called with), or null when none is listed. */
function representative(family: string) {
  const ticker = FAMILIES.get(family)?.tickers[0];
  return ticker ? getCurrency(ticker)! : null;
}

export function runDifferential(library: string, refs: Reference[]): void {
  for (const ref of refs) {
    const family = getFamily(ref.family);
    describe(`${ref.family} against ${library} (${ref.check})`, () => {
      it("the family exists and the coverage table names this library for it", () => {
        expect(family, ref.family).toBeDefined();
        expect(DIFFERENTIAL[ref.family]).toBe(library);
      });

      const made = ref.made ?? 300;
      it(`accepts ${made} addresses the library made, and the library agrees on their corruptions`, async () => {
        const random = seededRandom(`${ref.family}:${library}`);
        const rejected: string[] = [];
        const disagreements: string[] = [];
        let stricterSeen = 0;
        let compared = 0;
        for (let i = 0; i < made; i++) {
          const address = await ref.make(random);
          if (!(await ref.accepts(address))) rejected.push(`library rejects its own ${address}`);
          if (!family!.validate(address)) rejected.push(`registry rejects ${address}`);
          for (const m of corruptions(ref.family, address, ref.corruptionsEach ?? 6, random)) {
            compared++;
            const lib = await ref.accepts(m);
            const reg = family!.validate(m);
            if (lib === reg) continue;
            const why = !reg && ref.stricter?.(m);
            if (why) stricterSeen++;
            else disagreements.push(`${m}: library ${lib}, registry ${reg}`);
          }
        }
        expect(rejected).toEqual([]);
        expect(disagreements).toEqual([]);
        expect(compared).toBeGreaterThan(made * 3);
        // the documented stricter cases must stay rare among random corruptions
        expect(stricterSeen).toBeLessThan(compared / 10);
      });

      const drawn = ref.drawn ?? 200;
      it(`the registry's generated deposit addresses are valid for the library (${drawn} draws)`, async () => {
        const currency = representative(ref.family);
        const bad: string[] = [];
        for (let i = 0; i < drawn; i++) {
          // the engine's call; families no listed currency uses are drawn from the family itself
          const address = currency ? generateAddress(currency).address : family!.generate(seededRandom(`${ref.family}:${i}`));
          if (!(await ref.accepts(address))) bad.push(address);
        }
        expect(bad).toEqual([]);
      });
    });
  }
}
