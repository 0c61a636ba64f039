import "server-only";
import { getConfig } from "@/lib/config";
import { ProvidersEngine } from "./providers/engine";
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

let engine: Engine | null = null;

/** The configured engine, one per process. */
export function getEngine(): Engine {
  if (!engine) {
    const name = getConfig().ENGINE;
    if (name === "providers") engine = new ProvidersEngine();
    else if (name === "simulated") engine = new SimulatedEngine();
    else throw new Error(`unknown engine ${name}`);
  }
  return engine;
}

/** The simulated engine when the sandbox is on. */
export function getSandboxEngine(): SimulatedEngine | null {
  const e = getEngine();
  return getConfig().sandboxEnabled && e instanceof SimulatedEngine ? e : null;
}
