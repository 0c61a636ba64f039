import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";

// Where an app's parts live (issue 49, "the app as a value"). lib/app/create-app.ts builds an
// app from its settings and parts (a database client, an engine, rate limiters, a clock, a
// logger); each of them, and every cache or piece of state that belongs to one app (the key
// cache, the live prices, the worker's chores...), is a value of that app's scope, not of a
// module. A module declares what it keeps with slot(): the value is made on first use within an
// app, from that app's settings, and closed with the app. So one process can hold several apps
// with different settings (the tests do: an in-process app per configuration), and nothing one
// app caches is seen by another.
//
// Which app a call belongs to: the scope the caller runs in (run(), AsyncLocalStorage: each
// request and each worker pass of an in-process test app runs in its app's scope), or else the
// process's installed app (install(): server.ts, worker.ts and the CLI install the one app they
// build, so production's request path needs no AsyncLocalStorage at all). Two module-level
// values stay, and only these (docs/architecture.md, One app, many apps): the AsyncLocalStorage
// and the installed scope. Next calls the dashboard's pages and actions with no way to hand
// them a value, so they find their app this way too.

/** Settings as the entry point read them (name -> value); lib/config.ts parses them. */
export type Settings = Readonly<Record<string, string | undefined>>;

export interface Scope {
  /** For logs and errors: which app. */
  readonly name: string;
  readonly settings: Settings;
  /** Each slot's value in this app, made on first use or provided. */
  readonly values: Map<symbol, unknown>;
  /** What closes this app's values, newest first. */
  readonly closers: (() => Promise<void> | void)[];
  closed: boolean;
}

export interface Slot<T> {
  /** This slot's value in the current app (made now if needed). */
  (): T;
  /** This slot's value in `scope`. */
  of(scope: Scope): T;
  /** Whether `scope` has made or been given a value for it (without making one). */
  has(scope: Scope): boolean;
  readonly key: symbol;
}

const storage = new AsyncLocalStorage<Scope>();
let installed: Scope | null = null;
let counter = 0;

export function newScope(settings: Settings, name = `app-${++counter}`): Scope {
  return { name, settings: Object.freeze({ ...settings }), values: new Map(), closers: [], closed: false };
}

/** The app the current call belongs to: its run() scope, else the installed app. */
export function currentScope(): Scope {
  const s = storage.getStore() ?? installed;
  if (!s)
    throw new Error(
      "no app: this code runs outside any app's scope (build one with createApp() and install() it, or call it inside app.run())",
    );
  return s;
}

/** The current app's scope, or null outside any. */
export function maybeScope(): Scope | null {
  return storage.getStore() ?? installed;
}

/** Runs `fn` as part of `scope`'s app (and everything `fn` starts: awaits, timers, callbacks). */
export function runInScope<T>(scope: Scope, fn: () => T): T {
  const here = storage.getStore();
  // The installed app needs no AsyncLocalStorage: outside any run(), it is the app already.
  if (here === scope || (here === undefined && installed === scope)) return fn();
  return storage.run(scope, fn);
}

/** Makes `scope` the process's app (the one outside any run()); returns the one it replaces. */
export function installScope(scope: Scope | null): Scope | null {
  const before = installed;
  installed = scope;
  return before;
}

/**
 * Something one app keeps: made by `make` on its first use within an app, from that app's
 * scope; `close` runs when the app closes (connections, timers, subscriptions).
 */
export function slot<T>(make: (scope: Scope) => T, close?: (value: T) => Promise<void> | void): Slot<T> {
  const key = Symbol(make.name || "slot");
  const of = (scope: Scope): T => {
    if (scope.values.has(key)) return scope.values.get(key) as T;
    if (scope.closed) throw new Error(`${scope.name} is closed`);
    const value = make(scope);
    scope.values.set(key, value);
    if (close) scope.closers.push(() => close(value));
    return value;
  };
  const get = (() => of(currentScope())) as Slot<T>;
  return Object.assign(get, { of, has: (scope: Scope) => scope.values.has(key), key });
}

/** Gives `scope` its own value for a slot (a part handed to createApp), before anything made one. */
export function provide<T>(scope: Scope, s: Slot<T>, value: T, close?: (value: T) => Promise<void> | void): void {
  if (scope.values.has(s.key)) throw new Error(`${scope.name}: this part was already made or provided`);
  scope.values.set(s.key, value);
  if (close) scope.closers.push(() => close(value));
}

/** Closes every value of the app, newest first; the app can make none after. */
export async function closeScope(scope: Scope): Promise<void> {
  if (scope.closed) return;
  scope.closed = true;
  // In the app's own scope: a closer may log, or read its settings (values already made stay readable).
  await runInScope(scope, async () => {
    for (const close of scope.closers.splice(0).reverse()) await close();
  });
  if (installed === scope) installed = null;
}
