import "server-only";
import { z } from "zod";
import changenow from "./mappings/changenow.json";
import exolix from "./mappings/exolix.json";
import fixedfloat from "./mappings/fixedfloat.json";
import sideshift from "./mappings/sideshift.json";
import simpleswap from "./mappings/simpleswap.json";
import type { ProviderAsset, ProviderName } from "./types";

// The versioned mapping files: registry ticker -> the provider's asset id. What a provider
// offers *now* is not in the file: the engine loads it from the provider (sync.ts).

const mappingFile = z.object({
  provider: z.string(),
  version: z.number().int().positive(),
  updated: z.string(),
  assets: z.record(z.string(), z.record(z.string(), z.string())),
});

export interface ProviderMapping {
  provider: ProviderName;
  version: number;
  /** Registry ticker -> provider asset. */
  assets: ReadonlyMap<string, ProviderAsset>;
}

function load(name: ProviderName, raw: unknown): ProviderMapping {
  const f = mappingFile.parse(raw);
  if (f.provider !== name) throw new Error(`mapping file for ${name} names ${f.provider}`);
  return { provider: name, version: f.version, assets: new Map(Object.entries(f.assets)) };
}

const MAPPINGS: Record<ProviderName, ProviderMapping> = {
  changenow: load("changenow", changenow),
  sideshift: load("sideshift", sideshift),
  fixedfloat: load("fixedfloat", fixedfloat),
  exolix: load("exolix", exolix),
  simpleswap: load("simpleswap", simpleswap),
};

export const getMapping = (name: ProviderName): ProviderMapping => MAPPINGS[name];
