import { afterAll, afterEach, beforeAll } from "vitest";
import { resetConfigForTests } from "@/lib/config";

// Settings are environment variables that getConfig() (lib/config.ts) reads once and caches.
// Tests change them only through here: every change resets that cache, and every change is
// undone after the tests that made it, so no test file leaks settings into another.

/** Settings to change: a value sets the variable, undefined unsets it. */
export type SettingsEnv = Record<string, string | undefined>;

/** Changes settings now and makes getConfig() read them again; undone by the enclosing settingsForTests or withSettings. */
export function setSettings(env: SettingsEnv): void {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfigForTests();
}

export interface BlockSettings {
  /** Back to the block's settings, then `env` on top of them: whatever an earlier set() changed is undone. */
  set(env?: SettingsEnv): void;
}

/**
 * Settings for the tests of a file or describe block: `env` from before its first test until
 * after its last, when every setting goes back to what it was. Call it before the block's own
 * beforeAll, which then runs with them. `afterEach`: also undo each test's changes after it.
 */
export function settingsForTests(env: SettingsEnv = {}, opts: { afterEach?: boolean } = {}): BlockSettings {
  let before = { ...process.env };
  let base = { ...process.env };
  const set = (extra: SettingsEnv = {}) => {
    process.env = { ...base };
    setSettings(extra);
  };
  beforeAll(() => {
    before = { ...process.env };
    setSettings(env);
    base = { ...process.env };
  });
  if (opts.afterEach) afterEach(() => set());
  afterAll(() => {
    process.env = before;
    resetConfigForTests();
  });
  return { set };
}

/** Runs `fn` (sync or async) with `env` set, then puts every setting back as it was, also when `fn` throws. */
export function withSettings<T>(env: SettingsEnv, fn: () => T): T {
  const before = { ...process.env };
  const restore = () => {
    process.env = before;
    resetConfigForTests();
  };
  setSettings(env);
  let result: T;
  try {
    result = fn();
  } catch (e) {
    restore();
    throw e;
  }
  if (result instanceof Promise) return result.finally(restore) as T;
  restore();
  return result;
}
