import "server-only";
import type { z } from "zod";
import { changenow } from "./changenow";
import { exolix } from "./exolix";
import { fixedfloat } from "./fixedfloat";
import { sideshift } from "./sideshift";
import { simpleswap } from "./simpleswap";

// Every upstream provider, one line each (docs/providers.md, Adding a provider). lib/config.ts
// takes their settings into its one schema and checks them; the providers engine makes their
// adapters; mapping.ts loads their mapping files. The order is the order of their settings and
// of the messages that list them.
// biome-ignore format: one line per provider
export const PROVIDERS = [
  changenow,
  sideshift,
  fixedfloat,
  exolix,
  simpleswap,
] as const;

export type ProviderName = (typeof PROVIDERS)[number]["name"];
export const PROVIDER_NAMES: readonly ProviderName[] = PROVIDERS.map((p) => p.name);

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** Every provider's settings shape, merged. */
type ProviderShape = UnionToIntersection<(typeof PROVIDERS)[number]["settings"]>;

/** Every provider's settings, for lib/config.ts's schema. */
export const PROVIDER_SETTINGS = Object.assign({}, ...PROVIDERS.map((p) => p.settings)) as ProviderShape;

/** The parsed settings of every provider. */
export type ProviderSettings = z.output<z.ZodObject<ProviderShape>>;

/** Whether an open order held by `provider` takes a refund address after creation (its adapter's setRefundAddress). */
export function takesRefundAddressLater(provider: string): boolean {
  return PROVIDERS.some((p) => p.name === provider && p.refundAddressLater === true);
}
