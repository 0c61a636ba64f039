// The differential coverage table is complete and true: every address family is either checked
// against a library or listed with the reason it is not, each library is a dev dependency pinned
// to an exact version, and each listed family really is run by one of the differential files.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FAMILY_MAP } from "../../../lib/currencies/families/index";
import { DIFFERENTIAL, NO_REFERENCE } from "./coverage";

const root = path.resolve(import.meta.dirname, "../../..");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const sources = ["utxo", "accounts", "keys"].map((f) => readFileSync(path.join(import.meta.dirname, `${f}.test.ts`), "utf8")).join("\n");

describe("differential coverage table", () => {
  it("every family is in exactly one of DIFFERENTIAL and NO_REFERENCE, and nothing else is", () => {
    for (const key of FAMILY_MAP.keys()) expect(Number(key in DIFFERENTIAL) + Number(key in NO_REFERENCE), key).toBe(1);
    for (const key of [...Object.keys(DIFFERENTIAL), ...Object.keys(NO_REFERENCE)]) expect(FAMILY_MAP.has(key), key).toBe(true);
  });

  it("every reference library is a devDependency pinned to an exact version (viem: the app's own dependency)", () => {
    for (const lib of new Set(Object.values(DIFFERENTIAL))) {
      const version = pkg.devDependencies[lib] ?? (lib === "viem" ? pkg.dependencies[lib] : undefined);
      expect(version, lib).toMatch(/^\d+\.\d+\.\d+$/);
      expect(pkg.dependencies[lib] === undefined || lib === "viem", `${lib} must not be a runtime dependency`).toBe(true);
    }
  });

  it("every family in DIFFERENTIAL is run by a differential test file", () => {
    for (const key of Object.keys(DIFFERENTIAL)) expect(sources.includes(`"${key}"`), key).toBe(true);
  });
});
