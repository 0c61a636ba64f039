import type { Locale } from "./locales";
import de from "./messages/de.json";
import en from "./messages/en.json";
import es from "./messages/es.json";
import fr from "./messages/fr.json";
import pt from "./messages/pt.json";
import ru from "./messages/ru.json";
import tr from "./messages/tr.json";
import zh from "./messages/zh.json";

// The messages of each locale, English the reference (messages/en.json). A locale whose file
// is not written yet, or a key missing from one, falls back to English. A new file: import it
// and add it to FILES (tests/i18n/messages.test.ts checks every file here is listed, and that
// each has exactly en.json's keys).

export type Messages = typeof en;
type Tree = { [key: string]: string | Tree };

/** The written translations besides English; a locale not listed here shows English. */
const FILES: Partial<Record<Locale, Tree>> = { es, pt, ru, zh, de, fr, tr };

function merge(base: Tree, over: Tree | undefined): Tree {
  if (!over) return base;
  const out: Tree = {};
  for (const [k, v] of Object.entries(base)) {
    const o = over[k];
    out[k] = typeof v === "string" ? (typeof o === "string" && o !== "" ? o : v) : merge(v, typeof o === "object" ? o : undefined);
  }
  return out;
}

/** A locale's messages, English where it has none. */
export function messagesFor(locale: Locale): Messages {
  return (locale === "en" ? en : merge(en as Tree, FILES[locale])) as Messages;
}

/** Only the namespaces a client component needs, to keep the page (and its inlined RSC payload) small. */
export function pickMessages<K extends keyof Messages>(messages: Messages, keys: readonly K[]): Pick<Messages, K> {
  return Object.fromEntries(keys.map((k) => [k, messages[k]])) as Pick<Messages, K>;
}

export const writtenLocales = () => Object.keys(FILES) as Locale[];
