import { getConfig } from "@/lib/config";
import { ProvidersEngine } from "./providers/engine";
import { SimulatedEngine } from "./simulated";
import type { Engine } from "./types";

export type { Engine, EngineContext, EngineStep, OpenedSwap, OpenSwapRequest, PairTerms, SwapSnapshot } from "./types";

const g = globalThis as unknown as { __resellerEngine?: Engine };

/** The configured engine, one per process. */
export function getEngine(): Engine {
  if (!g.__resellerEngine) {
    const name = getConfig().ENGINE;
    if (name === "providers") g.__resellerEngine = new ProvidersEngine();
    else if (name === "simulated") g.__resellerEngine = new SimulatedEngine();
    else throw new Error(`unknown engine ${name}`);
  }
  return g.__resellerEngine;
}

/** The simulated engine when the sandbox is on (matched by shape: the instance may come from the other bundle). */
export function getSandboxEngine(): SimulatedEngine | null {
  const e = getEngine();
  return getConfig().SANDBOX && e.name === "simulated" && typeof (e as SimulatedEngine).depositStep === "function"
    ? (e as SimulatedEngine)
    : null;
}
