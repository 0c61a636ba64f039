import { getConfig } from "@/lib/config";
import { getCurrency } from "@/lib/currencies";
import type { Currency } from "@/lib/currencies/types";
import type { OrderState } from "@/lib/domain/order-states";
import { ProvidersEngine } from "@/lib/engine/providers/engine";
import type { SwapSnapshot } from "@/lib/engine/types";
import { AppError } from "@/lib/errors";
import type { ProviderAdapter } from "@/lib/providers/types";
import { withSettings } from "../../support/settings";

export const cur = (t: string): Currency => getCurrency(t)!;

/** A providers engine over the given adapters, with settings from `env` (the rest default). */
export function engineWith(adapters: ProviderAdapter[], env: Record<string, string> = {}): ProvidersEngine {
  const settings = {
    ENGINE: "providers",
    LOG_LEVEL: "silent",
    CHANGENOW_ENABLED: "true",
    CHANGENOW_API_KEY: "k",
    CHANGENOW_ACCOUNT_COMMISSION_BPS: "200",
    SIDESHIFT_ENABLED: "true",
    SIDESHIFT_SECRET: "s",
    SIDESHIFT_AFFILIATE_ID: "a",
    FIXEDFLOAT_ENABLED: "true",
    FIXEDFLOAT_API_KEY: "k",
    FIXEDFLOAT_API_SECRET: "s",
    ...env,
  };
  return withSettings(settings, () => new ProvidersEngine(getConfig(), adapters));
}

export function snapshot(over: Partial<SwapSnapshot> & { state: OrderState; upstream: SwapSnapshot["upstream"] }): SwapSnapshot {
  return {
    orderId: `o${Math.random().toString(36).slice(2)}`,
    fromCurrency: "btc",
    toCurrency: "eth",
    fromAmount: "0.1",
    amountReceived: null,
    refundAddress: null,
    createdAt: new Date(),
    expiresAt: new Date(Date.now() + 3_600_000),
    ...over,
  };
}

/** The API error code a promise rejects with. */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  throw new Error("did not fail");
}
