import { afterEach, describe, expect, it } from "vitest";
import { NativeDate, restoreNativeDate } from "@/lib/native-date";

// server.ts puts the native Date back after Next's server wrapped it. The wrapper here does
// what Next's does (next/dist/server/node-environment-extensions/date.js): a constructor that
// forwards to the original, with the prototype's constructor pointed at it.
afterEach(() => {
  globalThis.Date = NativeDate;
  Object.defineProperty(NativeDate.prototype, "constructor", { value: NativeDate, writable: true, configurable: true });
});

describe("restoreNativeDate", () => {
  it("puts back the Date that Next's server replaced, prototype's constructor included", () => {
    const original = globalThis.Date;
    function Wrapped(this: unknown, ...args: unknown[]) {
      if (new.target === undefined) return Reflect.apply(original, undefined, args);
      return Reflect.construct(original, args, new.target);
    }
    Object.defineProperties(Wrapped, Object.getOwnPropertyDescriptors(original));
    Object.defineProperty(original.prototype, "constructor", { value: Wrapped });
    globalThis.Date = Wrapped as unknown as DateConstructor;
    expect(new Date(0).constructor).toBe(Wrapped);

    expect(restoreNativeDate()).toBe(true);
    expect(globalThis.Date).toBe(NativeDate);
    expect(new Date(0).constructor).toBe(NativeDate);
    expect(new Date("2026-11-23T00:00:00Z").toISOString()).toBe("2026-11-23T00:00:00.000Z");
    expect(restoreNativeDate()).toBe(false); // nothing to do the second time
  });
});
