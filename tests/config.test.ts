import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { getConfig, resetConfigForTests, SETTING_NAMES } from "@/lib/config";

describe("settings", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    resetConfigForTests();
  });

  it("every setting is in the README's table, and the table names no unknown one", () => {
    const readme = fs.readFileSync("README.md", "utf8");
    const table = readme.slice(readme.indexOf("## Settings"), readme.indexOf("## Architecture"));
    const documented = [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect([...documented].sort()).toEqual([...SETTING_NAMES].sort());
  });

  it("defaults give the embedded setup: SQLite under data/, port 3000, simulated engine", () => {
    for (const k of SETTING_NAMES) delete process.env[k];
    resetConfigForTests();
    const c = getConfig();
    expect(c.PORT).toBe(3000);
    expect(c.databaseProvider).toBe("sqlite");
    expect(c.sqlitePath).toMatch(/data\/reseller\.db$/);
    expect(c.ENGINE).toBe("simulated");
    expect([c.RATE_LIMIT_PUBLIC_PER_MINUTE, c.RATE_LIMIT_PUBLIC_CREATES_PER_DAY, c.RATE_LIMIT_KEY_PER_MINUTE]).toEqual([60, 100, 300]);
  });

  it("picks PostgreSQL by the URL scheme and refuses nonsense with the variable's name", () => {
    process.env.DATABASE_URL = "postgres://u@h:5432/db";
    resetConfigForTests();
    expect(getConfig().databaseProvider).toBe("postgresql");
    process.env.DATABASE_URL = "mysql://x";
    resetConfigForTests();
    expect(() => getConfig()).toThrow(/DATABASE_URL/);
    process.env.DATABASE_URL = "file:./x.db";
    process.env.PORT = "abc";
    resetConfigForTests();
    expect(() => getConfig()).toThrow(/PORT/);
  });
});
