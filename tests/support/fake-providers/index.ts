import { getMapping } from "@/lib/engine/providers/mapping";
import { FakeChangeNow } from "./changenow";
import { FakeExolix } from "./exolix";
import { FakeFixedFloat } from "./fixedfloat";
import { FakeSideShift } from "./sideshift";
import { FakeSimpleSwap } from "./simpleswap";

// The five fakes together, for tests of ENGINE=providers: pairs are set by registry ticker
// (through the mapping files), and `env()` gives the server the fakes' URLs and credentials
// (ChangeNOW, SideShift and FixedFloat enabled; `env({ all: true })` enables Exolix and
// SimpleSwap too).

export interface Fakes {
  changenow: FakeChangeNow;
  sideshift: FakeSideShift;
  fixedfloat: FakeFixedFloat;
  exolix: FakeExolix;
  simpleswap: FakeSimpleSwap;
  /** Sets a pair on every fake: each provider's rate (to per from) and the deposit limits. */
  setPair(
    from: string,
    to: string,
    rates: { changenow?: string; sideshift?: string; fixedfloat?: string; exolix?: string; simpleswap?: string },
    limits?: { min: string; max: string },
  ): void;
  env(opts?: { all?: boolean }): Record<string, string>;
  stop(): Promise<void>;
}

export async function startFakes(): Promise<Fakes> {
  const changenow = await new FakeChangeNow().start();
  const sideshift = await new FakeSideShift().start();
  const fixedfloat = await new FakeFixedFloat().start();
  const exolix = await new FakeExolix().start();
  const simpleswap = await new FakeSimpleSwap().start();
  const asset = (provider: "changenow" | "sideshift" | "fixedfloat" | "exolix" | "simpleswap", ticker: string) => {
    const a = getMapping(provider).assets.get(ticker);
    if (!a) throw new Error(`${provider} has no mapping for ${ticker}`);
    return a;
  };
  return {
    changenow,
    sideshift,
    fixedfloat,
    exolix,
    simpleswap,
    setPair(from, to, rates, limits = { min: "0.001", max: "1000" }) {
      if (rates.changenow) {
        const f = asset("changenow", from);
        const t = asset("changenow", to);
        changenow.setPair(`${f.ticker}@${f.network}`, `${t.ticker}@${t.network}`, { rate: rates.changenow, ...limits });
      }
      if (rates.sideshift) {
        const f = asset("sideshift", from);
        const t = asset("sideshift", to);
        sideshift.setPair(`${f.coin}-${f.network}`, `${t.coin}-${t.network}`, { rate: rates.sideshift, ...limits });
      }
      if (rates.fixedfloat)
        fixedfloat.setPair(asset("fixedfloat", from).code, asset("fixedfloat", to).code, { rate: rates.fixedfloat, ...limits });
      if (rates.exolix) {
        const f = asset("exolix", from);
        const t = asset("exolix", to);
        exolix.setPair(`${f.coin}@${f.network}`, `${t.coin}@${t.network}`, { rate: rates.exolix, ...limits });
      }
      if (rates.simpleswap) {
        const f = asset("simpleswap", from);
        const t = asset("simpleswap", to);
        simpleswap.setPair(`${f.ticker}@${f.network}`, `${t.ticker}@${t.network}`, { rate: rates.simpleswap, ...limits });
      }
    },
    env: (opts = {}) => ({
      ...(opts.all
        ? {
            EXOLIX_ENABLED: "true",
            EXOLIX_API_KEY: exolix.apiKey,
            EXOLIX_API_URL: exolix.baseUrl,
            EXOLIX_ACCOUNT_COMMISSION_BPS: "200",
            SIMPLESWAP_ENABLED: "true",
            SIMPLESWAP_API_KEY: simpleswap.apiKey,
            SIMPLESWAP_API_URL: simpleswap.baseUrl,
            SIMPLESWAP_ACCOUNT_COMMISSION_BPS: "200",
          }
        : {}),
      ENGINE: "providers",
      CHANGENOW_ENABLED: "true",
      CHANGENOW_API_KEY: changenow.apiKey,
      CHANGENOW_API_URL: changenow.baseUrl,
      CHANGENOW_ACCOUNT_COMMISSION_BPS: "200",
      SIDESHIFT_ENABLED: "true",
      SIDESHIFT_SECRET: sideshift.secret,
      SIDESHIFT_AFFILIATE_ID: sideshift.affiliateId,
      SIDESHIFT_API_URL: sideshift.baseUrl,
      FIXEDFLOAT_ENABLED: "true",
      FIXEDFLOAT_API_KEY: fixedfloat.apiKey,
      FIXEDFLOAT_API_SECRET: fixedfloat.apiSecret,
      FIXEDFLOAT_REFCODE: "testref",
      FIXEDFLOAT_API_URL: fixedfloat.baseUrl,
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
      await Promise.all([changenow.kill(), sideshift.kill(), fixedfloat.kill(), exolix.kill(), simpleswap.kill()]);
    },
  };
}
