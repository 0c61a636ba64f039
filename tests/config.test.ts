import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { getConfig, SETTING_NAMES } from "@/lib/config";
import { setSettings, settingsForTests } from "./support/settings";

describe("settings", () => {
  settingsForTests({}, { afterEach: true });

  // docs/configuration.md documents every setting once, in one table: a row per setting.
  const settingRows = (file: string) => [...fs.readFileSync(file, "utf8").matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]);

  it("docs/configuration.md's table has one row per setting: none missing, none twice, none unknown", () => {
    const documented = settingRows("docs/configuration.md");
    const twice = documented.filter((name, i) => documented.indexOf(name) !== i);
    expect(twice, "documented twice").toEqual([]);
    expect(
      SETTING_NAMES.filter((name) => !documented.includes(name)),
      "missing from the table",
    ).toEqual([]);
    expect(
      documented.filter((name) => !SETTING_NAMES.includes(name)),
      "no such setting in lib/config.ts",
    ).toEqual([]);
  });

  it("no other page has a settings table of its own", () => {
    const pages = [
      "README.md",
      "bench/README.md",
      ...fs.readdirSync("docs", { recursive: true, encoding: "utf8" }).map((f) => path.join("docs", f)),
    ];
    const others = pages.filter((f) => f.endsWith(".md") && f !== path.join("docs", "configuration.md"));
    expect(others.flatMap((f) => settingRows(f).map((name) => `${f}: ${name}`))).toEqual([]);
  });

  it("defaults give the embedded setup: SQLite under data/, port 3000, simulated engine", () => {
    setSettings(Object.fromEntries(SETTING_NAMES.map((k) => [k, undefined])));
    const c = getConfig();
    expect(c.PORT).toBe(3000);
    expect(c.databaseProvider).toBe("sqlite");
    expect(c.sqlitePath).toMatch(/data\/reseller\.db$/);
    expect(c.ENGINE).toBe("simulated");
    expect([c.RATE_LIMIT_PUBLIC_PER_MINUTE, c.RATE_LIMIT_PUBLIC_CREATES_PER_DAY, c.RATE_LIMIT_KEY_PER_MINUTE]).toEqual([60, 100, 300]);
  });

  it("picks PostgreSQL by the URL scheme and refuses nonsense with the variable's name", () => {
    setSettings({ DATABASE_URL: "postgres://u@h:5432/db" });
    expect(getConfig().databaseProvider).toBe("postgresql");
    setSettings({ DATABASE_URL: "mysql://x" });
    expect(() => getConfig()).toThrow(/DATABASE_URL/);
    setSettings({ DATABASE_URL: "file:./x.db", PORT: "abc" });
    expect(() => getConfig()).toThrow(/PORT/);
  });

  it("TRUST_PROXY: false, a hop count (true is 1), or a list of proxy addresses and CIDRs; anything else is refused", () => {
    const parse = (v: string) => {
      setSettings({ TRUST_PROXY: v });
      return getConfig().TRUST_PROXY;
    };
    expect(parse("false")).toEqual({ hops: 0 });
    expect(parse("0")).toEqual({ hops: 0 });
    expect(parse("true")).toEqual({ hops: 1 });
    expect(parse("2")).toEqual({ hops: 2 });
    expect(parse("127.0.0.1, 10.0.0.0/8,::1,fd00::/8,loopback")).toEqual({
      addresses: ["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8", "loopback"],
    });
    for (const bad of ["nginx", "10.0.0.0/33", "10.0.0.1/8/1", "1.2.3", "127.0.0.1, nginx"])
      expect(() => parse(bad), bad).toThrow(/TRUST_PROXY/);
  });

  it("the sandbox is on only with the simulated engine", () => {
    setSettings({ SANDBOX: "true" });
    expect(getConfig().sandboxEnabled).toBe(true);
    setSettings({ ENGINE: "providers", CHANGENOW_ENABLED: "true", CHANGENOW_API_KEY: "k" });
    expect(getConfig().sandboxEnabled).toBe(false);
  });
});
