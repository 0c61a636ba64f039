import "server-only";
import { getConfig } from "@/lib/config";
import { provide, type Scope, slot } from "@/lib/scope";
import { ProvidersEngine } from "./providers/engine";
import { connectSharedStore } from "./shared-store";
import { SimulatedEngine } from "./simulated";
import type { Engine } from "./types";

export type {
  CurrencyAvailability,
  Engine,
  EngineContext,
  EngineStep,
  OpenedSwap,
  OpenSwapRequest,
  PairTerms,
  SwapSnapshot,
} from "./types";

/** The engine ENGINE names, made for the current app on first use; or the one given to createApp. */
const engineSlot = slot<Engine>(() => {
  const name = getConfig().ENGINE;
  if (name === "providers") return new ProvidersEngine();
  if (name === "simulated") return new SimulatedEngine();
  throw new Error(`unknown engine ${name}`);
});

/** The current app's engine. */
export function getEngine(): Engine {
  return engineSlot();
}

/** Gives an app an engine of its own (createApp({ engine })). */
export function provideEngine(scope: Scope, engine: Engine): void {
  provide(scope, engineSlot, engine);
}

/**
 * At server start: the engine is made before the first request, with ENGINE=providers and
 * REDIS_URL its shared quote store connected (so a fresh instance shares the others' quotes
 * from its first estimate), and what it loads by itself (the providers' currency lists) in,
 * waiting at most `waitMs` for each.
 */
export async function connectEngineStore(waitMs: number): Promise<void> {
  const cfg = getConfig();
  const engine = getEngine();
  if (cfg.ENGINE === "providers" && cfg.REDIS_URL) await connectSharedStore(cfg.REDIS_URL, waitMs);
  await engine.warmUp?.(waitMs);
}

/** The simulated engine when the sandbox is on. */
export function getSandboxEngine(): SimulatedEngine | null {
  const e = getEngine();
  return getConfig().sandboxEnabled && e instanceof SimulatedEngine ? e : null;
}
