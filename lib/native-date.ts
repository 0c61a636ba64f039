import "server-only";

/** The global Date as it was when lib/ was loaded: before Next's server replaced it (see restoreNativeDate). */
export const NativeDate: DateConstructor = globalThis.Date;

/**
 * Puts the native Date back after Next has replaced it. Next's server wraps the global Date
 * (next/dist/server/node-environment-extensions/date.js) to notice clock reads while it
 * prerenders with `cacheComponents`, which this app does not use; every `new Date()` and
 * `Date.now()` of every API request went through that wrapper (3% of a GET /currencies' CPU in
 * the profile). Returns whether it had been replaced.
 */
export function restoreNativeDate(): boolean {
  if (globalThis.Date === NativeDate) return false;
  globalThis.Date = NativeDate;
  Object.defineProperty(NativeDate.prototype, "constructor", { value: NativeDate, writable: true, configurable: true, enumerable: false });
  return true;
}
