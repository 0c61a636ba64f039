import { z } from "zod";

// docs/configuration.md's rows for the providers' settings, written from their definitions
// (npm run docs:settings; tests/providers/registry.test.ts fails when the page differs).

/** What the rows are written from: a definition's settings (lib/providers/types.ts). */
interface Provider {
  settings: z.ZodRawShape;
}

/** A provider's settings as rows of the settings table: name, default (or unset), meaning (its description). */
export function settingRows(p: Provider): string[] {
  const defaults: Record<string, unknown> = z.object(p.settings).parse({});
  return Object.entries(p.settings).map(([name, schema]) => {
    const d = defaults[name];
    return `| \`${name}\` | ${d === undefined ? "unset" : `\`${String(d)}\``} | ${z.globalRegistry.get(schema)?.description ?? ""} |`;
  });
}

/** The name a row of the settings table documents, or null for any other line. */
export const rowName = (line: string): string | null => /^\| `([A-Z][A-Z0-9_]*)` \|/.exec(line)?.[1] ?? null;

/**
 * The page with every provider's rows, in the registry's order, right after the row of
 * `after` (the last of the engine's own settings); rows of settings that no longer exist
 * (a provider removed) are dropped.
 */
export function withProviderRows(page: string, providers: readonly Provider[], known: readonly string[], after: string): string {
  const lines = page.split("\n").filter((l) => {
    const name = rowName(l);
    return name === null || (known.includes(name) && !providers.some((p) => name in p.settings));
  });
  const at = lines.findIndex((l) => rowName(l) === after);
  if (at < 0) throw new Error(`the settings table has no row for ${after}`);
  lines.splice(at + 1, 0, ...providers.flatMap(settingRows));
  return lines.join("\n");
}
