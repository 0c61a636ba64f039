import "server-only";
import crypto from "node:crypto";
import { getConfig } from "@/lib/config";
import { generateAddress, getCurrency } from "@/lib/currencies";
import type { Currency } from "@/lib/currencies/types";
import type { Order } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { D } from "@/lib/money/decimal";
import { rateAfterFee } from "@/lib/quotes/compute-quote";
import type { Engine, EngineContext, EngineStep } from "./types";

export type SandboxFault = "unavailable" | "error";

/** A transaction hash in the shape the currency's chain uses (0x-prefixed on EVM chains). */
function fakeTxHash(currency: Currency | undefined): string {
  const hex = crypto.randomBytes(32).toString("hex");
  return currency?.family === "evm" ? `0x${hex}` : hex;
}

/**
 * The built-in engine: prices from the dated snapshot shipped in the currency registry,
 * the platform fee on top, deposit addresses generated valid for the source currency, and
 * an order that moves one state per SIM_STEP_SECONDS once its (sandbox) deposit is seen.
 */
export class SimulatedEngine implements Engine {
  readonly name = "simulated";
  /** Sandbox switches, per caller scope, so one tester's outage never hits another. */
  private readonly faults = new Map<string, SandboxFault>();

  setFault(scope: string, fault: SandboxFault | null) {
    if (fault) this.faults.set(scope, fault);
    else this.faults.delete(scope);
  }

  getFault(scope: string): SandboxFault | null {
    return this.faults.get(scope) ?? null;
  }

  private checkFault(ctx: EngineContext) {
    const fault = this.faults.get(ctx.scope);
    if (fault === "unavailable") throw new AppError("ENGINE_UNAVAILABLE", "The exchange engine is unavailable; try again later.");
    if (fault === "error") throw new Error("simulated engine failure (sandbox fault switch)");
  }

  async getPairTerms(from: Currency, to: Currency, ctx: EngineContext) {
    this.checkFault(ctx);
    const platformFeeBps = getConfig().PLATFORM_FEE_BPS;
    return {
      rate: rateAfterFee(new D(from.priceUsd), new D(to.priceUsd), platformFeeBps),
      platformFeeBps,
      minAmount: new D(from.minAmount),
      maxAmount: new D(from.maxAmount),
    };
  }

  async createDeposit(order: { from: Currency }, ctx: EngineContext) {
    this.checkFault(ctx);
    const { address, extraId } = generateAddress(order.from);
    return { payinAddress: address, payinExtraId: order.from.hasExtraId ? extraId : null };
  }

  nextCheckDelayMs() {
    return Math.round(getConfig().SIM_STEP_SECONDS * 1000);
  }

  /** The sandbox's "a deposit arrived" for an order: the amount quoted, or the one given. */
  depositStep(order: Order, amount: string): EngineStep {
    return { to: "confirming", amountReceived: amount, payinHash: fakeTxHash(getCurrency(order.fromCurrency)) };
  }

  async step(order: Order, now: Date): Promise<EngineStep | null> {
    if (order.nextActionAt && order.nextActionAt > now) return null;
    const from = getCurrency(order.fromCurrency);
    const to = getCurrency(order.toCurrency);
    switch (order.status) {
      case "waiting": {
        // Optional automatic deposit of the quoted amount (SIM_AUTO_DEPOSIT_SECONDS).
        const auto = getConfig().SIM_AUTO_DEPOSIT_SECONDS;
        if (auto > 0 && now.getTime() - order.createdAt.getTime() >= auto * 1000)
          return { to: "confirming", amountReceived: order.fromAmount, payinHash: fakeTxHash(from) };
        return null;
      }
      case "confirming": {
        const received = new D(order.amountReceived ?? "0");
        const min = new D(from?.minAmount ?? "0");
        const max = new D(from?.maxAmount ?? "0");
        if (received.lt(min) || received.gt(max)) {
          return {
            to: "failed",
            reason: received.lt(min) ? "deposit_below_minimum" : "deposit_above_maximum",
            refund: { amount: order.amountReceived ?? "0", hash: order.refundAddress ? fakeTxHash(from) : null },
          };
        }
        return { to: "exchanging" };
      }
      case "exchanging":
        return { to: "sending", payoutHash: fakeTxHash(to) };
      case "sending":
        return { to: "finished" };
      default:
        return null;
    }
  }
}
