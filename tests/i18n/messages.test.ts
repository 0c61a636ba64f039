import fs from "node:fs";
import path from "node:path";
import { IntlMessageFormat } from "intl-messageformat";
import { describe, expect, it } from "vitest";
import { LOCALES, resolveLocale } from "@/lib/i18n/locales";
import { messagesFor, writtenLocales } from "@/lib/i18n/messages";

// The hosted pages' messages (lib/i18n/messages/*.json): English is the reference; every other
// file present has exactly its keys (none missing, none extra), every message parses as ICU,
// every file is one of LOCALES and is wired into lib/i18n/messages.ts (else it would never show).

const dir = path.join(import.meta.dirname, "../../lib/i18n/messages");
type Tree = { [k: string]: string | Tree };
const read = (f: string) => JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as Tree;
const keys = (t: Tree, prefix = ""): string[] =>
  Object.entries(t).flatMap(([k, v]) => (typeof v === "string" ? [`${prefix}${k}`] : keys(v, `${prefix}${k}.`)));
const leaves = (t: Tree, prefix = ""): [string, string][] =>
  Object.entries(t).flatMap(([k, v]) => (typeof v === "string" ? [[`${prefix}${k}`, v] as [string, string]] : leaves(v, `${prefix}${k}.`)));

const files = fs.readdirSync(dir).filter((f) => f.endsWith(".json"));
const en = read("en.json");

describe("the hosted pages' messages", () => {
  it("has a file per language only for the languages the page offers, each wired in", () => {
    expect(files).toContain("en.json");
    for (const f of files) expect(LOCALES as readonly string[]).toContain(f.replace(/\.json$/, ""));
    const others = files.map((f) => f.replace(/\.json$/, "")).filter((l) => l !== "en");
    expect([...writtenLocales()].sort()).toEqual(others.sort());
  });

  it.each(files)("%s has exactly en.json's keys", (f) => {
    expect(keys(read(f)).sort()).toEqual(keys(en).sort());
  });

  it.each(files)("every message of %s is valid ICU", (f) => {
    const locale = f.replace(/\.json$/, "");
    for (const [k, v] of leaves(read(f))) expect(() => new IntlMessageFormat(v, locale), k).not.toThrow();
  });

  it("a language without its file shows English, key for key", () => {
    for (const l of LOCALES) expect(keys(messagesFor(l) as unknown as Tree).sort()).toEqual(keys(en).sort());
    if (!writtenLocales().includes("tr")) expect(messagesFor("tr")).toEqual(messagesFor("en"));
  });

  it("takes the locale from lang, then Accept-Language (by q), else English", () => {
    expect(resolveLocale("de", "fr")).toBe("de");
    expect(resolveLocale("DE", null)).toBe("de");
    expect(resolveLocale("xx", "pt-BR,pt;q=0.9,en;q=0.8")).toBe("pt");
    expect(resolveLocale(null, "ja, ru;q=0.5, es;q=0.7")).toBe("es");
    expect(resolveLocale(null, "fr;q=0, tr;q=0.1")).toBe("tr");
    expect(resolveLocale(undefined, "ja")).toBe("en");
    expect(resolveLocale("", "")).toBe("en");
  });
});
