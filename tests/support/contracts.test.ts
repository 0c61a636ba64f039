import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

// The test contracts are deployed from a committed artifact file; this keeps it honest:
// a fresh solc-js compile of the committed sources must give the same file byte for byte.
describe("test contract artifacts", () => {
  it("tests/support/contracts/artifacts.json is what scripts/compile-contracts.mjs builds from the .sol sources", () => {
    const out = execFileSync(process.execPath, ["scripts/compile-contracts.mjs", "--check"], { encoding: "utf8" });
    expect(out).toContain("contract artifacts match their sources");
  }, 60_000);
});
