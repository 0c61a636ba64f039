import { afterAll, describe, expect, it } from "vitest";
import { getConfig } from "@/lib/config";
import { setSettings, settingsForTests, withSettings } from "./settings";

// The settings helper every test file uses: getConfig() sees each change at once, and every
// change is undone afterwards, whatever the test did.

const fee = () => getConfig().PLATFORM_FEE_BPS;
const outside = process.env.PLATFORM_FEE_BPS;

describe("withSettings", () => {
  it("sets, then puts back, around a function, an async one, and one that throws", async () => {
    const before = fee();
    expect(withSettings({ PLATFORM_FEE_BPS: "77" }, () => fee())).toBe(77);
    expect(fee()).toBe(before);
    expect(
      await withSettings({ PLATFORM_FEE_BPS: "78" }, async () => {
        await new Promise((r) => setTimeout(r, 1));
        setSettings({ PLATFORM_FEE_BPS: "79" });
        return fee();
      }),
    ).toBe(79);
    expect(fee()).toBe(before);
    expect(() =>
      withSettings({ PLATFORM_FEE_BPS: "80" }, () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    await expect(withSettings({ PLATFORM_FEE_BPS: "81" }, async () => Promise.reject(new Error("late")))).rejects.toThrow("late");
    expect(fee()).toBe(before);
    expect(process.env.PLATFORM_FEE_BPS).toBe(outside);
  });
});

describe("settingsForTests", () => {
  const settings = settingsForTests({ PLATFORM_FEE_BPS: "42", QUOTE_TTL_SECONDS: undefined }, { afterEach: true });

  it("holds the block's settings from its first test", () => {
    expect(fee()).toBe(42);
    expect(process.env.QUOTE_TTL_SECONDS).toBeUndefined();
    settings.set({ PLATFORM_FEE_BPS: "43", MARKUP_CAP_BPS: "500" });
    settings.set({ MARKUP_CAP_BPS: "600" });
    // set() starts from the block's settings: the earlier 43 is gone.
    expect([fee(), getConfig().MARKUP_CAP_BPS]).toEqual([42, 600]);
    setSettings({ PLATFORM_FEE_BPS: "44" });
  });

  it("undoes a test's changes after it", () => {
    expect([fee(), getConfig().MARKUP_CAP_BPS]).toEqual([42, 1000]);
  });
});

afterAll(() => {
  // After the block, everything is as it was before it.
  expect(process.env.PLATFORM_FEE_BPS).toBe(outside);
});
