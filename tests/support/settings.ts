import { afterAll, afterEach, beforeAll } from "vitest";
import { closeScope, installScope, maybeScope, newScope, type Scope, type Settings } from "@/lib/scope";

// Settings belong to an app (lib/scope.ts; lib/app/create-app.ts): a test that needs other
// settings runs in another app, made here with the current app's settings and its changes,
// and installed as the process's app until the change is undone. Nothing here touches
// process.env, and every app made here is closed when its block ends, so no test file leaks
// settings (or a client, or a cache) into another. getConfig() parses an app's settings on
// first use, so settings it refuses throw there, as at a real start.

/** Settings to change: a value sets it, undefined unsets it. */
export type SettingsEnv = Record<string, string | undefined>;

/** The settings of the app the tests run in now (the test setup installs one per file). */
const current = (): Settings => maybeScope()?.settings ?? process.env;

const merged = (base: Settings, env: SettingsEnv): Settings => ({ ...base, ...env });

/** Apps made here and not yet closed. */
const made = new Set<Scope>();

function use(settings: Settings): Scope {
  const s = newScope(settings, "test-settings");
  made.add(s);
  installScope(s);
  return s;
}

/** Closes the apps made here that are not `keep` (the one installed again). */
async function closeMade(keep: Scope | null): Promise<void> {
  for (const s of [...made])
    if (s !== keep) {
      made.delete(s);
      await closeScope(s);
    }
}

/** Changes settings now (an app with them is installed); undone by the enclosing settingsForTests or withSettings. */
export function setSettings(env: SettingsEnv): void {
  use(merged(current(), env));
}

export interface BlockSettings {
  /** Back to the block's settings, then `env` on top of them: whatever an earlier set() changed is undone. */
  set(env?: SettingsEnv): void;
}

/**
 * Settings for the tests of a file or describe block: `env` from before its first test until
 * after its last, when the app from before the block is back. Call it before the block's own
 * beforeAll, which then runs with them. `afterEach`: also undo each test's changes after it.
 */
export function settingsForTests(env: SettingsEnv = {}, opts: { afterEach?: boolean } = {}): BlockSettings {
  let before: Scope | null = null;
  let base: Settings = {};
  const set = (extra: SettingsEnv = {}) => {
    use(merged(base, extra));
  };
  beforeAll(() => {
    before = maybeScope();
    base = merged(current(), env);
    use(base);
  });
  if (opts.afterEach) afterEach(() => set());
  afterAll(async () => {
    installScope(before);
    await closeMade(before);
  });
  return { set };
}

/** Runs `fn` (sync or async) with `env` set, then puts the app from before back, also when `fn` throws. */
export function withSettings<T>(env: SettingsEnv, fn: () => T): T {
  const before = maybeScope();
  const restore = () => {
    installScope(before);
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

/** Closes every app made here (the test setup, after each file). */
export async function closeSettingsApps(): Promise<void> {
  await closeMade(null);
}
