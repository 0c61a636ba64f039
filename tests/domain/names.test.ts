import { describe, expect, it } from "vitest";
import { nameProblem } from "@/lib/domain/names";

// The rule for names of keys and widgets (issue 48); the HTTP side is tests/http/hardening/names.test.ts.
describe("nameProblem", () => {
  it.each(["app", "Приложение", "店铺 API", "Café ☕", "👩‍💻 dev", "שלום app", "a".repeat(64), "x\u200by"])("accepts %j", (n) => {
    expect(nameProblem(n, { max: 64 })).toBeNull();
  });

  it.each([
    ["a\u0000b", /control/],
    ["a\nb", /control/],
    ["a\u0085b", /control/],
    ["a\u2028b", /control/],
    ["\ud800x", /surrogate/],
    ["x\udc00", /surrogate/],
    ["a\u202eb", /bidirectional/],
    ["a\u2066b\u2069", /bidirectional/],
    ["\u200b\u200c\u200d", /visible/],
    ["\u200e\u200f\u061c\ufeff", /visible/],
    ["\u3164\u115f", /visible/],
    ["\ufe0f", /visible/],
    ["", /1 to 64/],
    ["a".repeat(65), /1 to 64/],
  ])("refuses %j (%s)", (n, why) => {
    expect(nameProblem(n, { max: 64 })).toMatch(why);
  });

  it("counts characters, not UTF-16 units", () => {
    expect(nameProblem("😀".repeat(64), { max: 64 })).toBeNull();
    expect(nameProblem("😀".repeat(65), { max: 64 })).toMatch(/1 to 64/);
  });
});
