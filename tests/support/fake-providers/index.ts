import { getMapping } from "@/lib/providers/mapping";
import { PROVIDER_NAMES, PROVIDERS, type ProviderName } from "@/lib/providers/registry";
import { fake as changenow } from "./changenow";
import { fake as exolix } from "./exolix";
import type { FakeProvider } from "./fake-server";
import { fake as fixedfloat } from "./fixedfloat";
import { fake as sideshift } from "./sideshift";
import { fake as simpleswap } from "./simpleswap";

// Every provider's fake together, for tests of ENGINE=providers: pairs are set by registry
// ticker (through the mapping files and each definition's assetKey), and `env()` gives the
// server the fakes' URLs and credentials (those a fake enables by default: ChangeNOW, SideShift
// and FixedFloat; `env({ all: true })` enables every registered provider).

// One entry per registered provider (its fake's file exports `fake`).
const BY_NAME = { changenow, sideshift, fixedfloat, exolix, simpleswap } satisfies Record<ProviderName, FakeProvider>;

/** Each registered provider's fake, by name (tests/providers/registry.test.ts: none missing). */
export const FAKES: Readonly<Record<string, FakeProvider | undefined>> = BY_NAME;

type Started = { [K in keyof typeof BY_NAME]: ReturnType<(typeof BY_NAME)[K]["create"]> };

export type Fakes = Started & {
  /** Sets a pair on every fake given a rate: each provider's rate (to per from) and the deposit limits. */
  setPair(from: string, to: string, rates: Partial<Record<ProviderName, string>>, limits?: { min: string; max: string }): void;
  env(opts?: { all?: boolean }): Record<string, string>;
  stop(): Promise<void>;
};

function fakeOf(name: string): FakeProvider {
  const f = FAKES[name];
  if (!f) throw new Error(`provider ${name} has no fake in tests/support/fake-providers`);
  return f;
}

export async function startFakes(): Promise<Fakes> {
  const started: Record<string, ReturnType<FakeProvider["create"]>> = {};
  for (const name of PROVIDER_NAMES) started[name] = await fakeOf(name).create().start();
  const asset = (provider: string, ticker: string) => {
    const a = getMapping(provider).assets.get(ticker);
    if (!a) throw new Error(`${provider} has no mapping for ${ticker}`);
    return a;
  };
  return {
    ...(started as Started),
    setPair(from, to, rates, limits = { min: "0.001", max: "1000" }) {
      for (const p of PROVIDERS) {
        const rate = rates[p.name];
        if (rate) started[p.name].setPair(p.assetKey(asset(p.name, from)), p.assetKey(asset(p.name, to)), { rate, ...limits });
      }
    },
    env: (opts = {}) => ({
      ...Object.assign({}, ...PROVIDER_NAMES.filter((n) => opts.all || fakeOf(n).byDefault).map((n) => fakeOf(n).env(started[n]))),
      ENGINE: "providers",
      PROVIDERS_POLL_SECONDS: "0.05",
      WORKER_RETRY_BASE_MS: "50",
      WORKER_RETRY_MAX_MS: "200",
      WORKER_MAX_ATTEMPTS: "3",
      SERVE_DASHBOARD: "false",
      // Deadlines are not what these servers test (tests/http/providers-outage.test.ts sets its
      // own): generous, so that a fake answering slowly on a loaded machine is still waited for.
      PROVIDERS_QUOTE_DEADLINE_MS: "30000",
      PROVIDERS_HTTP_TIMEOUT_MS: "30000",
    }),
    stop: async () => {
      await Promise.all(Object.values(started).map((f) => f.kill()));
    },
  };
}
