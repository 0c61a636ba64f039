import "server-only";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { getLogger } from "@/lib/log";
import { slot } from "@/lib/scope";

// Providers switched on or off at run time by an operator (issue 52, the console's Providers
// page), over their <NAME>_ENABLED setting. Kept in the database (ProviderSwitch), so a switch
// survives restarts and reaches every instance: each reads the table again at most every
// PROVIDER_SWITCH_SECONDS, before it quotes or opens an order (the providers engine), so a
// switch applies everywhere within that bound. A provider without credentials has no adapter
// and stays out whatever its switch says. Written by the console (lib/console/providers).

interface Cache {
  map: ReadonlyMap<string, boolean>;
  at: number;
  loading: Promise<void> | null;
}

const cache = slot<Cache>(() => ({ map: new Map(), at: 0, loading: null }));

/** Each switched provider's state (true: on, false: off); a provider absent here follows its setting. */
export async function providerSwitches(): Promise<ReadonlyMap<string, boolean>> {
  const c = cache();
  if (Date.now() - c.at < getConfig().PROVIDER_SWITCH_SECONDS * 1000) return c.map;
  c.loading ??= getDb()
    .providerSwitch.findMany()
    .then((rows) => {
      c.map = new Map(rows.map((r) => [r.provider, r.enabled]));
    })
    .catch((e) => getLogger().warn({ err: String(e) }, "provider switches not read; keeping the last known"))
    .finally(() => {
      c.at = Date.now();
      c.loading = null;
    });
  await c.loading;
  return c.map;
}

/** Forgets the last reading: this instance applies a switch it just wrote at once. */
export function forgetProviderSwitches(): void {
  cache().at = 0;
}
