import "server-only";
import crypto from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { getConfig } from "@/lib/config";
import { generateAddress, getCurrency } from "@/lib/currencies";
import type { Currency } from "@/lib/currencies/types";
import type { OrderState } from "@/lib/domain/order-states";
import { AppError } from "@/lib/errors";
import { seededBytes } from "@/lib/ids";
import { D, type Dec } from "@/lib/money/decimal";
import { rateAfterFee } from "./rate";
import type { Engine, EngineContext, EngineStep, OpenedSwap, OpenSwapRequest, QuoteRequest, SwapSnapshot } from "./types";

export type SandboxFault = "unavailable" | "error";

/** One call the engine answered about an order, as the sandbox shows it. */
export interface EngineCall {
  method: "openSwap" | "readSwap";
  /** The order's state the call was about (readSwap), or null (openSwap). */
  state: OrderState | null;
  startedAt: string;
  endedAt: string;
  outcome: "ok" | "error";
}

/** Orders whose calls are remembered; the oldest are forgotten first. */
const CALL_LOG_ORDERS = 10_000;

/** A transaction hash in the shape the currency's chain uses (0x-prefixed on EVM chains). */
function fakeTxHash(currency: Currency | undefined): string {
  const hex = crypto.randomBytes(32).toString("hex");
  return currency?.family === "evm" ? `0x${hex}` : hex;
}

/**
 * The built-in engine: prices from the dated snapshot shipped in the currency registry,
 * the platform fee on top, deposit addresses generated valid for the source currency, and
 * an order that moves one state per SIM_STEP_SECONDS once its (sandbox) deposit is seen.
 * Each call takes SIM_STEP_DELAY_MS, like an upstream API would, and is logged per order so
 * the sandbox can show (and tests can count) what the engine was asked.
 */
export class SimulatedEngine implements Engine {
  readonly name = "simulated";
  /** Sandbox switches, per caller scope, so one tester's outage never hits another. */
  private readonly faults = new Map<string, SandboxFault>();
  /** Sandbox market moves, per caller scope, in basis points of every rate (-500: rates 5% lower). */
  private readonly moves = new Map<string, number>();
  private readonly callLog = new Map<string, EngineCall[]>();

  setFault(scope: string, fault: SandboxFault | null) {
    if (fault) this.faults.set(scope, fault);
    else this.faults.delete(scope);
  }

  getFault(scope: string): SandboxFault | null {
    return this.faults.get(scope) ?? null;
  }

  setRateMove(scope: string, bps: number) {
    if (bps) this.moves.set(scope, bps);
    else this.moves.delete(scope);
  }

  getRateMove(scope: string): number {
    return this.moves.get(scope) ?? 0;
  }

  /**
   * Each pair's rate after the fee, computed once per fee (the registry's prices are frozen
   * for the life of the process): a 64-digit division was a seventh of an estimate's time.
   */
  private readonly baseRates = new Map<string, { feeBps: number; rate: Dec }>();

  /** The market rate after the platform fee, moved by the scope's sandbox market move. */
  private rate(from: Currency, to: Currency, scope: string) {
    const feeBps = getConfig().PLATFORM_FEE_BPS;
    const key = `${from.ticker}>${to.ticker}`;
    let hit = this.baseRates.get(key);
    if (hit?.feeBps !== feeBps) {
      hit = { feeBps, rate: rateAfterFee(new D(from.priceUsd), new D(to.priceUsd), feeBps) };
      this.baseRates.set(key, hit);
    }
    const base = hit.rate;
    const move = this.getRateMove(scope);
    return move ? base.mul(10_000 + move).div(10_000) : base;
  }

  /** The calls this process's engine answered about an order, oldest first. */
  callsFor(orderId: string): EngineCall[] {
    return [...(this.callLog.get(orderId) ?? [])];
  }

  private checkFault(ctx: EngineContext) {
    const fault = this.faults.get(ctx.scope);
    if (fault === "unavailable") throw new AppError("ENGINE_UNAVAILABLE", "The exchange engine is unavailable; try again later.");
    if (fault === "error") throw new Error("simulated engine failure (sandbox fault switch)");
  }

  /** Runs one engine call about an order: latency, fault switch, then the work, all logged. */
  private async call<T>(
    orderId: string,
    method: EngineCall["method"],
    state: OrderState | null,
    ctx: EngineContext,
    work: () => T,
  ): Promise<T> {
    const startedAt = new Date().toISOString();
    let outcome: EngineCall["outcome"] = "error";
    try {
      const delay = getConfig().SIM_STEP_DELAY_MS;
      if (delay > 0) await sleep(delay, undefined, { signal: ctx.signal });
      this.checkFault(ctx);
      const result = work();
      outcome = "ok";
      return result;
    } finally {
      const log = this.callLog.get(orderId) ?? [];
      if (!this.callLog.has(orderId)) {
        if (this.callLog.size >= CALL_LOG_ORDERS) this.callLog.delete(this.callLog.keys().next().value as string);
        this.callLog.set(orderId, log);
      }
      log.push({ method, state, startedAt, endedAt: new Date().toISOString(), outcome });
    }
  }

  /** Each currency's limits as decimals, parsed once: registry currencies are frozen, and a Decimal is immutable. */
  private readonly limits = new WeakMap<Currency, { minAmount: Dec; maxAmount: Dec }>();

  async quote(req: QuoteRequest, ctx: EngineContext) {
    this.checkFault(ctx);
    const platformFeeBps = getConfig().PLATFORM_FEE_BPS;
    let limits = this.limits.get(req.from);
    if (!limits) {
      limits = { minAmount: new D(req.from.minAmount), maxAmount: new D(req.from.maxAmount) };
      this.limits.set(req.from, limits);
    }
    return { rate: this.rate(req.from, req.to, ctx.scope), platformFeeBps, minAmount: limits.minAmount, maxAmount: limits.maxAmount };
  }

  /** The deposit address is derived from the order id: asking twice for one order gives the same one. */
  openSwap(req: OpenSwapRequest, ctx: EngineContext): Promise<OpenedSwap> {
    return this.call(req.orderId, "openSwap", null, ctx, () => {
      const { address, extraId } = generateAddress(req.from, seededBytes(`simulated-deposit:${req.orderId}`));
      const auto = getConfig().SIM_AUTO_DEPOSIT_SECONDS;
      return {
        payinAddress: address,
        payinExtraId: req.from.hasExtraId ? extraId : null,
        firstCheckAfterMs: auto > 0 ? Math.round(auto * 1000) : null,
      };
    });
  }

  nextCheckDelayMs(_swap: SwapSnapshot) {
    return Math.round(getConfig().SIM_STEP_SECONDS * 1000);
  }

  /** The sandbox's "a deposit arrived" for an order: the amount quoted, or the one given. */
  depositStep(swap: { fromCurrency: string }, amount: string): EngineStep {
    return { to: "confirming", amountReceived: amount, payinHash: fakeTxHash(getCurrency(swap.fromCurrency)) };
  }

  /**
   * A refund address given after creation. Open: nothing to do, the order's row carries it and
   * a failure refunds to it (nextStep). Failed with its refund awaiting an address: the refund
   * is sent now (simulated: a transaction hash in the source chain's shape).
   */
  async setRefundAddress(swap: SwapSnapshot, _to: { address: string; extraId: string | null }, ctx: EngineContext) {
    this.checkFault(ctx);
    return { refundHash: swap.state === "failed" ? fakeTxHash(getCurrency(swap.fromCurrency)) : null };
  }

  readSwap(swap: SwapSnapshot, ctx: EngineContext): Promise<EngineStep | null> {
    return this.call(swap.orderId, "readSwap", swap.state, ctx, () => this.nextStep(swap, new Date(), ctx));
  }

  private nextStep(swap: SwapSnapshot, now: Date, ctx: EngineContext): EngineStep | null {
    const from = getCurrency(swap.fromCurrency);
    const to = getCurrency(swap.toCurrency);
    switch (swap.state) {
      case "waiting": {
        // Optional automatic deposit of the quoted amount (SIM_AUTO_DEPOSIT_SECONDS).
        const auto = getConfig().SIM_AUTO_DEPOSIT_SECONDS;
        if (auto > 0 && now.getTime() - swap.createdAt.getTime() >= auto * 1000)
          return { to: "confirming", amountReceived: swap.fromAmount, payinHash: fakeTxHash(from) };
        return null;
      }
      case "confirming": {
        const received = new D(swap.amountReceived ?? "0");
        const refund = { amount: swap.amountReceived ?? "0", hash: swap.refundAddress ? fakeTxHash(from) : null };
        // Fixed rate: the locked amount is paid for the quoted deposit inside the window only.
        if (swap.rateType === "fixed") {
          if (swap.fixedUntil && swap.depositedAt && swap.depositedAt > swap.fixedUntil)
            return { to: "failed", reason: "deposit_late", refund };
          if (!received.eq(swap.fromAmount)) return { to: "failed", reason: "deposit_amount_mismatch", refund };
        }
        const min = new D(from?.minAmount ?? "0");
        const max = new D(from?.maxAmount ?? "0");
        if (received.lt(min) || received.gt(max)) {
          return {
            to: "failed",
            reason: received.lt(min) ? "deposit_below_minimum" : "deposit_above_maximum",
            refund,
          };
        }
        // A floating order is exchanged at the rate of this moment: the snapshot's unless the
        // sandbox moved the market for this caller (the snapshot's rate is the order's own then).
        if (swap.rateType === "fixed" || !from || !to || !this.getRateMove(ctx.scope)) return { to: "exchanging" };
        return { to: "exchanging", rate: this.rate(from, to, ctx.scope) };
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
