import { describe, expect, it } from "vitest";
import { csvCell } from "@/lib/dashboard/export";

// What a CSV cell becomes (lib/dashboard/export.ts; the LibreOffice check behind it is in its comment).
describe("csvCell", () => {
  it.each(["=1+1", "+1+1", "-1+x", "@SUM(1,1)", "\t=1+1", "\r=1+1", "＝1+1", "＋1", "－1", "＠x", '=HYPERLINK("http://x","y")'])(
    "%j is written as text (a leading apostrophe)",
    (v) => expect(csvCell(v)).toBe(`'${v}`),
  );

  // LibreOffice Calc 7.4 read each of these as text, "Evaluate formulas" on: no prefix, so the
  // reseller sees their name as they typed it.
  it.each([
    "\u200b=1+1",
    "\u200c=1+1",
    "\u2060=1+1",
    "\ufeff=1+1",
    "\u00a0=1+1",
    "\u200e=1+1",
    "\u200f=1+1",
    "\u202a=1+1",
    "|calc",
    '"=1+1"',
  ])("%j stays as it is", (v) => expect(csvCell(v)).toBe(v));

  it("exact decimals stay numbers, negative ones too", () => {
    expect(csvCell("-0.000123")).toBe("-0.000123");
    expect(csvCell("42")).toBe("42");
    expect(csvCell(null)).toBe("");
  });
});
