import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { getConfig, markupRange, SETTING_NAMES } from "@/lib/config";
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

  it("PAYOUTS_PASS_SECONDS: the automatic payouts pass every 30 s unless set, at least every second", () => {
    setSettings({});
    expect(getConfig().PAYOUTS_PASS_SECONDS).toBe(30);
    setSettings({ PAYOUTS_PASS_SECONDS: "1" });
    expect(getConfig().PAYOUTS_PASS_SECONDS).toBe(1);
    for (const bad of ["0", "-5", "1.5", "soon"]) {
      setSettings({ PAYOUTS_PASS_SECONDS: bad });
      expect(() => getConfig(), bad).toThrow(/PAYOUTS_PASS_SECONDS/);
    }
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
    setSettings({ ENGINE: "providers", CHANGENOW_ENABLED: "true", CHANGENOW_API_KEY: "k", CHANGENOW_ACCOUNT_COMMISSION_BPS: "100" });
    expect(getConfig().sandboxEnabled).toBe(false);
  });
});

describe("provider settings that would refuse every order (issue 31)", () => {
  settingsForTests({}, { afterEach: true });
  const PROVIDERS = {
    ENGINE: "providers",
    CHANGENOW_API_KEY: "k",
    SIDESHIFT_SECRET: "s",
    SIDESHIFT_AFFILIATE_ID: "a",
    FIXEDFLOAT_API_KEY: "k",
    FIXEDFLOAT_API_SECRET: "s",
  };

  // Each trap: an enabled provider that could not take a single order, and the setting named.
  const TRAPS: [string, Record<string, string>, RegExp][] = [
    [
      "ChangeNOW with its account commission left at 0",
      { CHANGENOW_ENABLED: "true" },
      /CHANGENOW_ACCOUNT_COMMISSION_BPS=0, below PLATFORM_FEE_BPS=25/,
    ],
    [
      "ChangeNOW with an account commission below the platform fee",
      { CHANGENOW_ENABLED: "true", CHANGENOW_ACCOUNT_COMMISSION_BPS: "20" },
      /CHANGENOW_ACCOUNT_COMMISSION_BPS=20, below PLATFORM_FEE_BPS=25/,
    ],
    [
      "FixedFloat with a cap below the fee",
      { FIXEDFLOAT_ENABLED: "true", FIXEDFLOAT_MAX_AFFTAX_BPS: "10" },
      /FIXEDFLOAT_MAX_AFFTAX_BPS=10/,
    ],
    [
      "SideShift with a fee above its 2% cap",
      { SIDESHIFT_ENABLED: "true", PLATFORM_FEE_BPS: "250" },
      /SIDESHIFT_ENABLED=true with PLATFORM_FEE_BPS=250/,
    ],
    [
      "Exolix with its account commission left at 0",
      { EXOLIX_ENABLED: "true", EXOLIX_API_KEY: "k" },
      /EXOLIX_ACCOUNT_COMMISSION_BPS=0, below PLATFORM_FEE_BPS=25/,
    ],
    [
      "SimpleSwap with a reward SimpleSwap cannot set (below 40 bps)",
      { SIMPLESWAP_ENABLED: "true", SIMPLESWAP_API_KEY: "k", SIMPLESWAP_ACCOUNT_COMMISSION_BPS: "30" },
      /SIMPLESWAP_ACCOUNT_COMMISSION_BPS=30: SimpleSwap sets a key's reward between 40 and 200 bps/,
    ],
    [
      "SimpleSwap with a reward above 2%",
      { SIMPLESWAP_ENABLED: "true", SIMPLESWAP_API_KEY: "k", SIMPLESWAP_ACCOUNT_COMMISSION_BPS: "250" },
      /SIMPLESWAP_ACCOUNT_COMMISSION_BPS=250/,
    ],
  ];
  for (const [name, env, message] of TRAPS)
    it(`refuses to start: ${name}`, () => {
      setSettings({ ...PROVIDERS, ...env });
      expect(() => getConfig()).toThrow(message);
    });

  it("starts when each enabled provider takes at least the platform fee", () => {
    setSettings({
      ...PROVIDERS,
      CHANGENOW_ENABLED: "true",
      CHANGENOW_ACCOUNT_COMMISSION_BPS: "25",
      FIXEDFLOAT_ENABLED: "true",
      FIXEDFLOAT_MAX_AFFTAX_BPS: "25",
    });
    expect(getConfig().ENGINE).toBe("providers");
  });

  it("the markup range is the best provider's, within MARKUP_CAP_BPS", () => {
    setSettings({ ...PROVIDERS, SIDESHIFT_ENABLED: "true", FIXEDFLOAT_ENABLED: "true", FIXEDFLOAT_MAX_AFFTAX_BPS: "100" });
    expect(markupRange(getConfig())).toEqual({
      maxBps: 175,
      limitedBy: "providers",
      providers: [
        { provider: "sideshift", label: "SideShift", maxMarkupBps: 175 },
        { provider: "fixedfloat", label: "FixedFloat", maxMarkupBps: 75 },
      ],
    });
    setSettings({ ...PROVIDERS, SIDESHIFT_ENABLED: "true", MARKUP_CAP_BPS: "100" });
    expect(markupRange(getConfig())).toMatchObject({ maxBps: 100, limitedBy: "MARKUP_CAP_BPS" });
    setSettings({ ENGINE: "simulated", MARKUP_CAP_BPS: "1000" });
    expect(markupRange(getConfig())).toEqual({ maxBps: 1000, limitedBy: "MARKUP_CAP_BPS", providers: [] });
  });
});
