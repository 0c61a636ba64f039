import "server-only";
import { z } from "zod";
import { PROVIDERS } from "./registry";
import type { ProviderAsset } from "./types";

// The versioned mapping files: registry ticker -> the provider's asset id. What a provider
// offers *now* is not in the file: the engine loads it from the provider (lib/engine/providers/sync.ts).

const mappingFile = z.object({
  provider: z.string(),
  version: z.number().int().positive(),
  updated: z.string(),
  assets: z.record(z.string(), z.record(z.string(), z.string())),
});

export interface ProviderMapping {
  provider: string;
  version: number;
  /** Registry ticker -> provider asset. */
  assets: ReadonlyMap<string, ProviderAsset>;
}

function load(name: string, raw: unknown): ProviderMapping {
  const f = mappingFile.parse(raw);
  if (f.provider !== name) throw new Error(`mapping file for ${name} names ${f.provider}`);
  return { provider: name, version: f.version, assets: new Map(Object.entries(f.assets)) };
}

const MAPPINGS = new Map(PROVIDERS.map((p) => [p.name as string, load(p.name, p.mapping)]));

export function getMapping(name: string): ProviderMapping {
  const m = MAPPINGS.get(name);
  if (!m) throw new Error(`no provider ${name} is registered (lib/providers/registry.ts)`);
  return m;
}
