// The differential coverage table is complete and true: every address family is either checked
// against a library or listed with the reason it is not, each library is a dev dependency of this
// folder's own package.json (never of the product's) pinned to an exact version, and each listed family really is run by one of the differential files.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FAMILY_MAP } from "../../../lib/currencies/families/index";
import { DIFFERENTIAL, NO_REFERENCE } from "./coverage";

const root = path.resolve(import.meta.dirname, "../../..");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const refs = JSON.parse(readFileSync(path.join(import.meta.dirname, "package.json"), "utf8"));
const sources = ["utxo", "accounts", "keys"].map((f) => readFileSync(path.join(import.meta.dirname, `${f}.test.ts`), "utf8")).join("\n");

describe("differential coverage table", () => {
  it("every family is in exactly one of DIFFERENTIAL and NO_REFERENCE, and nothing else is", () => {
    for (const key of FAMILY_MAP.keys()) expect(Number(key in DIFFERENTIAL) + Number(key in NO_REFERENCE), key).toBe(1);
    for (const key of [...Object.keys(DIFFERENTIAL), ...Object.keys(NO_REFERENCE)]) expect(FAMILY_MAP.has(key), key).toBe(true);
  });

  it("every reference library is pinned in this folder's package.json, not the product's (viem: the app's own dependency)", () => {
    for (const lib of new Set(Object.values(DIFFERENTIAL))) {
      const version = refs.devDependencies[lib] ?? (lib === "viem" ? pkg.dependencies[lib] : undefined);
      expect(version, lib).toMatch(/^\d+\.\d+\.\d+$/);
      if (lib === "viem") continue;
      expect(
        pkg.dependencies[lib] ?? pkg.devDependencies[lib],
        `${lib} belongs to ${path.relative(root, import.meta.dirname)} only`,
      ).toBeUndefined();
    }
  });

  it("every family in DIFFERENTIAL is run by a differential test file", () => {
    for (const key of Object.keys(DIFFERENTIAL)) expect(sources.includes(`"${key}"`), key).toBe(true);
  });
});
