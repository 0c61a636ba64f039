import "server-only";
import { getConfig } from "@/lib/config";
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

/**
 * At server start, with ENGINE=providers and REDIS_URL: the engine is made and its shared
 * quote store connected before the first request, so that a fresh instance shares the
 * others' quotes from its first estimate (waiting at most `waitMs`).
 */
export async function connectEngineStore(waitMs: number): Promise<void> {
  const cfg = getConfig();
  if (cfg.ENGINE !== "providers" || !cfg.REDIS_URL) return;
  getEngine();
  await connectSharedStore(cfg.REDIS_URL, waitMs);
}

/** The simulated engine when the sandbox is on. */
export function getSandboxEngine(): SimulatedEngine | null {
  const e = getEngine();
  return getConfig().sandboxEnabled && e instanceof SimulatedEngine ? e : null;
}
