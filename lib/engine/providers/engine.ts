import "server-only";
import { type Config, getConfig } from "@/lib/config";
import { getCurrency } from "@/lib/currencies";
import type { Currency } from "@/lib/currencies/types";
import {
  type FailureReason,
  isFinal,
  nextOnHappyPath,
  ORDER_STATES,
  type OrderState,
  STATE_REASONS,
  type StateReason,
} from "@/lib/domain/order-states";
import { termsForUserAmount } from "@/lib/domain/quote-math";
import { AppError } from "@/lib/errors";
import { getLogger } from "@/lib/log";
import { ceilAmount, D, type Dec, floorAmount, formatAmount } from "@/lib/money/decimal";
import { num } from "@/lib/money/json-number";
import { isProviderError, ProviderError } from "@/lib/providers/http";
import { getMapping } from "@/lib/providers/mapping";
import { PROVIDERS } from "@/lib/providers/registry";
import type { CreatedSwap, ProviderAdapter, ProviderQuote, StatusReason, SwapReading } from "@/lib/providers/types";
import { BestRate, type Candidate, type RankedQuote } from "../best-rate";
import { type SharedStore, sharedStore } from "../shared-store";
import { providerSwitches } from "../switches";
import type {
  CurrencyAvailability,
  Engine,
  EngineContext,
  EngineStep,
  OpenedSwap,
  OpenSwapRequest,
  PairTerms,
  ProviderChoice,
  QuoteRequest,
  SwapSnapshot,
  UpstreamStatus,
} from "../types";
import { syncProvider } from "./sync";

// ENGINE=providers: quotes, orders and status from upstream instant-exchange providers
// (docs/providers.md). The engine keeps no order state of its own: the order row carries the
// provider, its swap id and the provider's last status; in memory there are only caches
// (quotes, currency lists, the last reading of a swap for catching up).

const RANK: Record<OrderState, number> = Object.fromEntries(ORDER_STATES.map((s, i) => [s, i])) as Record<OrderState, number>;

/** The reasons an open order shows while it waits on the provider (the status body's `stateReason`). */
const openReason = (reason: StatusReason | null): StateReason | null =>
  reason && (STATE_REASONS as readonly string[]).includes(reason) ? (reason as StateReason) : null;

/** How a final failure reading ends the order; anything else the provider calls failed is `provider_failed`. */
const FAILURE_OF: Partial<Record<StatusReason, FailureReason>> = {
  refunded: "refunded",
  expired: "expired",
  provider_failed: "provider_failed",
};

/**
 * A deposit or refund amount the provider reported, as an amount of the source currency
 * (docs/api.md, Amounts): rounded down, so the user is never shown more than was moved and a
 * deposit re-priced with the order's rate never pays or credits more than arrived.
 */
function depositAmount(swap: SwapSnapshot, x: Dec): string {
  return formatAmount(floorAmount(x, getCurrency(swap.fromCurrency)?.precision ?? 8));
}

/** The adapter of every registered provider whose credentials are set (lib/providers/registry.ts). */
export function createAdapters(cfg: Config): ProviderAdapter[] {
  const http = { timeoutMs: cfg.PROVIDERS_HTTP_TIMEOUT_MS };
  return PROVIDERS.flatMap((p) => p.create(cfg, http) ?? []);
}

/** Which providers take new orders (the others still answer about orders they hold). */
const enabledIn = (cfg: Config): ReadonlySet<string> => new Set(PROVIDERS.filter((p) => cfg[p.enabledBy]).map((p) => p.name));

export class ProvidersEngine implements Engine {
  readonly name = "providers";
  readonly upstream = true;
  private readonly cfg: Config;
  private readonly adapters: Map<string, ProviderAdapter>;
  /** Providers that take new orders (the others still answer about orders they hold). */
  private readonly enabled: ReadonlySet<string>;
  private readonly best: BestRate;
  /** Registry tickers each provider offers now, from its live list; absent until the first sync. */
  private readonly offered = new Map<string, { tickers: Set<string>; at: number }>();
  private readonly syncing = new Map<string, Promise<void>>();
  /** The last reading of each swap, so an order several steps behind catches up without asking again. */
  private readonly lastReading = new Map<string, SwapReading>();
  private readonly opening = new Map<string, Promise<OpenedSwap>>();
  /** The deposit range providers stated lately per pair ("from>to"), for the currency list's limits. */
  private readonly ranges = new Map<string, { min: Dec | null; max: Dec | null; at: number }>();
  private availabilityVersion = 0;
  /** Providers an operator switched on or off at run time (lib/engine/switches.ts), as last read. */
  private switches: ReadonlyMap<string, boolean> = new Map();
  private switchesReadAt = 0;
  private switchesReading: Promise<void> | null = null;

  constructor(cfg: Config = getConfig(), adapters: ProviderAdapter[] = createAdapters(cfg)) {
    this.cfg = cfg;
    this.adapters = new Map(adapters.map((a) => [a.name, a]));
    this.enabled = enabledIn(cfg);
    this.best = new BestRate({
      deadlineMs: cfg.PROVIDERS_QUOTE_DEADLINE_MS,
      cooldownMs: cfg.PROVIDERS_COOLDOWN_SECONDS * 1000,
      cacheTtlMs: cfg.PROVIDERS_QUOTE_CACHE_SECONDS * 1000,
      onCooldown: (e) => getLogger().warn({ provider: e.provider, kind: e.kind, msg: e.message }, "provider skipped and cooled down"),
      shared: this.sharedStore(cfg),
    });
    for (const a of this.routable()) void this.refreshOffered(a);
  }

  /**
   * REDIS_URL: instances share the quote cache, its single flight and the budgets, under a
   * prefix of the providers' endpoints (two deployments on one Redis never read each other's quotes).
   */
  private sharedStore(cfg: Config): { store: SharedStore; lockMs: number } | null {
    const scope = [...PROVIDERS.map((p) => p.baseUrl(cfg)), String(cfg.PLATFORM_FEE_BPS)].join("|");
    const store = sharedStore(cfg.REDIS_URL, scope);
    return store ? { store, lockMs: cfg.PROVIDERS_HTTP_TIMEOUT_MS + 1000 } : null;
  }

  private routable(): ProviderAdapter[] {
    return [...this.adapters.values()].filter((a) => this.switches.get(a.name) ?? this.enabled.has(a.name));
  }

  /** Reads the run-time switches again when PROVIDER_SWITCH_SECONDS have passed: before every quote and opening. */
  private async readSwitches(): Promise<void> {
    const before = this.switches;
    const now = await providerSwitches();
    this.switchesReadAt = Date.now();
    if (now === before) return;
    this.switches = now;
    const changed = now.size !== before.size || [...now].some(([name, on]) => before.get(name) !== on);
    if (changed) {
      this.availabilityVersion++;
      for (const a of this.routable()) if (!this.offered.has(a.name)) void this.refreshOffered(a);
    }
  }

  // ---- currencies -------------------------------------------------------------------------

  private refreshOffered(a: ProviderAdapter): Promise<void> {
    const running = this.syncing.get(a.name);
    if (running) return running;
    const p = syncProvider(a, getMapping(a.name), AbortSignal.timeout(this.cfg.PROVIDERS_HTTP_TIMEOUT_MS))
      .then((r) => {
        this.offered.set(a.name, { tickers: new Set(r.offered), at: Date.now() });
        this.availabilityVersion++;
        if (r.unknown.length)
          getLogger().warn({ provider: a.name, unknown: r.unknown.slice(0, 20) }, "mapped currencies the provider does not list");
      })
      .catch((e) => {
        // Keep what we knew; without any list yet, every mapped currency counts as offered.
        getLogger().warn({ provider: a.name, err: String(e) }, "provider currency list not loaded");
        const prev = this.offered.get(a.name);
        if (prev) prev.at = Date.now() - this.cfg.PROVIDERS_SYNC_SECONDS * 1000 + this.cfg.PROVIDERS_COOLDOWN_SECONDS * 1000;
      })
      .finally(() => this.syncing.delete(a.name));
    this.syncing.set(a.name, p);
    return p;
  }

  private offers(a: ProviderAdapter, ticker: string): boolean {
    const mapped = getMapping(a.name).assets.has(ticker);
    if (!mapped) return false;
    const o = this.offered.get(a.name);
    if (!o || Date.now() - o.at > this.cfg.PROVIDERS_SYNC_SECONDS * 1000) void this.refreshOffered(a);
    return o ? o.tickers.has(ticker) : true;
  }

  /** Some enabled provider offers the currency now (docs/providers.md section 4). */
  private offeredByAny(ticker: string): boolean {
    return this.routable().some((a) => this.offers(a, ticker));
  }

  /** Keeps the range the providers stated for a pair (the widest of them), when it changed. */
  private noteRange(from: Currency, to: Currency, min: Dec | null, max: Dec | null) {
    const key = `${from.ticker}>${to.ticker}`;
    const prev = this.ranges.get(key);
    const same = (x: Dec | null, y: Dec | null | undefined) => (x === null ? y == null : y != null && x.eq(y));
    if (!prev || !same(min, prev.min) || !same(max, prev.max)) this.availabilityVersion++;
    this.ranges.delete(key);
    if (this.ranges.size >= 20_000) this.ranges.delete(this.ranges.keys().next().value as string);
    this.ranges.set(key, { min, max, at: Date.now() });
  }

  async warmUp(waitMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...this.syncing.values()]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
  }

  availability(): CurrencyAvailability {
    // The currency list follows the run-time switches too: read again in the background once
    // they are stale, so a provider switched back on brings its currencies back (this reader
    // never waits; quotes and openings do, in readSwitches()).
    if (!this.switchesReading && Date.now() - this.switchesReadAt >= this.cfg.PROVIDER_SWITCH_SECONDS * 1000)
      this.switchesReading = this.readSwitches()
        .catch(() => {}) // a closed app: nothing to read into
        .finally(() => {
          this.switchesReading = null;
        });
    const fresh = Date.now() - this.cfg.PROVIDERS_SYNC_SECONDS * 1000;
    // A currency offered or not, as its providers' lists go stale, is re-read (offers() refreshes them).
    return {
      version: this.availabilityVersion,
      offers: (ticker) => this.offeredByAny(ticker),
      limits: (ticker) => {
        let min: Dec | null = null;
        let max: Dec | null = null;
        let seen = false;
        for (const [key, r] of this.ranges) {
          if (r.at < fresh || !key.startsWith(`${ticker}>`)) continue;
          seen = true;
          if (r.min && (!min || r.min.lt(min))) min = r.min;
          if (r.max && (!max || r.max.gt(max))) max = r.max;
        }
        return seen ? { min, max } : null;
      },
    };
  }

  // ---- quotes -------------------------------------------------------------------------------

  /** Providers that offer the pair and whose commission rule admits this markup (docs/providers.md section 1). */
  private candidates(from: Currency, to: Currency, markupBps: number): Candidate[] {
    const commissionBps = this.cfg.PLATFORM_FEE_BPS + markupBps;
    return this.routable().flatMap((a) => {
      if (!this.offers(a, from.ticker) || !this.offers(a, to.ticker)) return [];
      const admits = a.commission.kind === "per-request" ? commissionBps <= a.commission.maxBps : a.commission.accountBps >= commissionBps;
      if (!admits) return [];
      const map = getMapping(a.name).assets;
      return [{ adapter: a, from: map.get(from.ticker)!, to: map.get(to.ticker)!, commissionBps }];
    });
  }

  /**
   * No provider could be asked: either none offers the pair, or none takes this fee + markup.
   * The message says which, and names the markup only when the caller has one.
   */
  private noCandidate(from: Currency, to: Currency, markupBps: number): AppError {
    const pair = `${from.ticker} -> ${to.ticker}`;
    const offering = this.routable().filter((a) => this.offers(a, from.ticker) && this.offers(a, to.ticker));
    if (!offering.length) return new AppError("CURRENCY_UNAVAILABLE", `No enabled exchange provider offers ${pair} right now.`);
    const fee = this.cfg.PLATFORM_FEE_BPS;
    const takes = offering
      .map((a) => {
        const cap = a.commission.kind === "per-request" ? a.commission.maxBps : a.commission.accountBps;
        return { name: a.name, max: cap - fee };
      })
      .sort((x, y) => y.max - x.max);
    const best = takes[0].max;
    const detail = takes.map((t) => `${t.name} ${t.max < 0 ? "none" : `up to ${t.max} bps`}`).join(", ");
    if (markupBps > 0 && best >= 0)
      return new AppError(
        "ENGINE_UNAVAILABLE",
        `The markup of ${markupBps} bps is above what the providers of ${pair} accept (${detail}); ` +
          `lower the markup to ${best} bps or less in the dashboard's Settings.`,
        { markupBps, maxMarkupBps: best },
      );
    return new AppError(
      "ENGINE_UNAVAILABLE",
      `The platform fee of ${fee} bps is above what the providers of ${pair} accept (${detail}): the operator must change the settings.`,
    );
  }

  /** No provider quoted: the most useful error for the client. */
  private noQuote(
    from: Currency,
    to: Currency,
    amount: Dec,
    candidates: Candidate[],
    errors: ProviderError[],
    markupBps: number,
  ): AppError {
    if (!candidates.length) return this.noCandidate(from, to, markupBps);
    const lows = errors.filter((e) => e.kind === "amount_too_low");
    const highs = errors.filter((e) => e.kind === "amount_too_high");
    if (lows.length && lows.length + highs.length === errors.length) {
      // Every provider that answered says the amount is out of its range: the widest range any offers.
      const mins = errors.flatMap((e) => (e.minAmount ? [e.minAmount] : []));
      const maxes = errors.flatMap((e) => (e.maxAmount ? [e.maxAmount] : []));
      // Limits as amounts of the source currency, rounded inward (docs/api.md, Amounts).
      const min = mins.length ? ceilAmount(D.min(...mins), from.precision) : null;
      const max = maxes.length ? floorAmount(D.max(...maxes), from.precision) : null;
      const limits = { ...(min ? { minAmount: num(min) } : {}), ...(max ? { maxAmount: num(max) } : {}) };
      const tooHigh = !lows.some((e) => !e.minAmount || amount.lt(e.minAmount));
      if (tooHigh && max)
        return new AppError(
          "AMOUNT_TOO_HIGH",
          `The maximum for ${from.ticker} -> ${to.ticker} is ${formatAmount(max)} ${from.ticker}.`,
          limits,
        );
      return new AppError(
        "AMOUNT_TOO_LOW",
        min
          ? `The minimum for ${from.ticker} -> ${to.ticker} is ${formatAmount(min)} ${from.ticker}.`
          : `The amount is below the minimum for ${from.ticker} -> ${to.ticker}.`,
        limits,
      );
    }
    if (highs.length && highs.length === errors.length) {
      const maxes = highs.flatMap((e) => (e.maxAmount ? [e.maxAmount] : []));
      const max = maxes.length ? floorAmount(D.max(...maxes), from.precision) : null;
      return new AppError(
        "AMOUNT_TOO_HIGH",
        max
          ? `The maximum for ${from.ticker} -> ${to.ticker} is ${formatAmount(max)} ${from.ticker}.`
          : `The amount is above the maximum for ${from.ticker} -> ${to.ticker}.`,
        max ? { maxAmount: num(max) } : {},
      );
    }
    if (errors.length && errors.every((e) => e.kind === "pair_unavailable" || e.kind === "amount_too_low" || e.kind === "amount_too_high"))
      return new AppError("CURRENCY_UNAVAILABLE", `No provider offers ${from.ticker} -> ${to.ticker} right now.`);
    return new AppError("ENGINE_UNAVAILABLE", "No exchange provider answered in time; try again later.");
  }

  async quote(req: QuoteRequest, ctx: EngineContext): Promise<PairTerms> {
    await this.readSwitches();
    const markupBps = req.markupBps ?? 0;
    const amount = req.fromAmount ?? new D(req.from.minAmount);
    const candidates = this.candidates(req.from, req.to, markupBps);
    const { ranked, errors } = await this.best.rank(candidates, amount, ctx.clientIp);
    // The ranges every provider stated, quoting or refusing the amount: the currency list's limits.
    const stated = [
      ...ranked.map((r) => ({ min: r.quote.minAmount, max: r.quote.maxAmount })),
      ...errors.filter((e) => e.minAmount || e.maxAmount).map((e) => ({ min: e.minAmount, max: e.maxAmount })),
    ];
    if (stated.length) {
      const mins = stated.flatMap((x) => (x.min ? [x.min] : []));
      const maxes = stated.flatMap((x) => (x.max ? [x.max] : []));
      this.noteRange(req.from, req.to, mins.length ? D.min(...mins) : null, maxes.length ? D.max(...maxes) : null);
    }
    if (!ranked.length) throw this.noQuote(req.from, req.to, amount, candidates, errors, markupBps);
    const best = ranked[0];
    const terms = termsForUserAmount(best.quote.toAmount, amount, req.to.precision, markupBps);
    const mins = ranked.map((r) => r.quote.minAmount).filter((x): x is Dec => x !== null);
    const maxes = ranked.map((r) => r.quote.maxAmount);
    return {
      rate: terms.rate,
      platformFeeBps: this.cfg.PLATFORM_FEE_BPS,
      minAmount: mins.length ? D.min(...mins) : new D(0),
      maxAmount: maxes.some((m) => m === null) ? new D(req.from.maxAmount) : D.max(...(maxes as Dec[])),
    };
  }

  // ---- opening an order ------------------------------------------------------------------------

  /** In-process guard: a second call for one order while the first runs gets the first's answer. */
  openSwap(req: OpenSwapRequest, ctx: EngineContext): Promise<OpenedSwap> {
    const running = this.opening.get(req.orderId);
    if (running) return running;
    const p = this.open(req, ctx).finally(() => setTimeout(() => this.opening.delete(req.orderId), 60_000).unref());
    this.opening.set(req.orderId, p);
    return p;
  }

  private async open(req: OpenSwapRequest, ctx: EngineContext): Promise<OpenedSwap> {
    await this.readSwitches();
    const candidates = this.candidates(req.from, req.to, req.markupBps);
    const { ranked, errors } = await this.best.rank(candidates, req.fromAmount, ctx.clientIp);
    for (const r of ranked) {
      try {
        return await this.openWith(r, req, ctx);
      } catch (e) {
        const err = isProviderError(e) ? e : new ProviderError(r.adapter.name, "unavailable", String(e));
        if (err.kind === "invalid_address")
          throw new AppError("INVALID_ADDRESS", `The provider refused the payout address: ${err.message}`);
        if (err.kind === "invalid_refund_address")
          throw new AppError("INVALID_REFUND_ADDRESS", `The provider refused the refund address: ${err.message}`);
        if (err.kind === "invalid_extra_id") throw new AppError("INVALID_EXTRA_ID", `The provider refused the extra ID: ${err.message}`);
        if (err.isOutage) this.best.coolDown(err);
        getLogger().warn(
          { orderId: req.orderId, provider: err.provider, kind: err.kind, msg: err.message },
          "provider could not open the order",
        );
        errors.push(err);
      }
    }
    throw this.noQuote(req.from, req.to, req.fromAmount, candidates, errors, req.markupBps);
  }

  /** A firm quote for the exact amount and commission, then the exchange made from it. */
  private async openWith(r: RankedQuote, req: OpenSwapRequest, ctx: EngineContext): Promise<OpenedSwap> {
    const a = r.adapter;
    await this.best.takeBudget(a); // orders spend the budget too, but are never refused by it
    const firm = await a.quote(
      { from: r.from, to: r.to, fromAmount: req.fromAmount, commissionBps: r.commissionBps, userIp: ctx.clientIp, firm: true },
      ctx.signal,
    );
    // The intent is durable before the provider is asked, and completed with its answer
    // (lib/orders/intents.ts): a crash in between leaves a record, never an unknown exchange.
    const intents = ctx.intents;
    const intent = intents
      ? await intents.creating({ orderId: req.orderId, provider: a.name, externalId: a.sendsExternalId ? req.orderId : null })
      : null;
    let created: CreatedSwap;
    try {
      created = await this.createSwapWith(a, r, req, firm, ctx);
    } catch (e) {
      // An answer means nothing was made; no answer in time, a 5xx or a cut connection may hide a created one.
      if (intents && intent && isProviderError(e) && e.kind !== "unavailable") await intents.notCreated(intent);
      throw e;
    }
    // Never promise more than either the quote or the created exchange says.
    const q = created.toAmount ? D.min(created.toAmount, firm.toAmount) : firm.toAmount;
    const expiresAt = created.expiresAt ?? firm.expiresAt ?? null;
    const opened: OpenedSwap = {
      payinAddress: created.payinAddress,
      payinExtraId: created.payinExtraId,
      firstCheckAfterMs: this.pollBaseMs(),
      upstream: { provider: a.name, id: created.id, data: created.data },
      terms: termsForUserAmount(q, req.fromAmount, req.to.precision, req.markupBps),
      ...(expiresAt ? { expiresAt } : {}),
    };
    if (intents && intent) await intents.created(intent, opened);
    getLogger().info({ orderId: req.orderId, provider: a.name, upstreamId: created.id }, "order opened upstream");
    return opened;
  }

  private createSwapWith(a: ProviderAdapter, r: RankedQuote, req: OpenSwapRequest, firm: ProviderQuote, ctx: EngineContext) {
    return a.createSwap(
      {
        orderId: req.orderId,
        from: r.from,
        to: r.to,
        fromAmount: req.fromAmount,
        commissionBps: r.commissionBps,
        quote: firm,
        payoutAddress: req.payoutAddress,
        payoutExtraId: req.payoutExtraId,
        refundAddress: req.refundAddress,
        refundExtraId: req.refundExtraId,
        userIp: ctx.clientIp,
      },
      ctx.signal,
    );
  }

  // ---- status -------------------------------------------------------------------------------

  private pollBaseMs(): number {
    return Math.round(this.cfg.PROVIDERS_POLL_SECONDS * 1000);
  }

  /** Reads slow down as the order ages: x1 for 10 minutes, x2 to an hour, x8 to 6 hours, x40 after. */
  nextCheckDelayMs(swap: SwapSnapshot): number {
    const last = this.lastReading.get(swap.orderId);
    if (last && this.ahead(last, swap.state)) return 0; // catch up at the next pass
    const ageMin = (Date.now() - swap.createdAt.getTime()) / 60_000;
    const factor = ageMin < 10 ? 1 : ageMin < 60 ? 2 : ageMin < 360 ? 8 : 40;
    return this.pollBaseMs() * factor;
  }

  private ahead(reading: SwapReading, state: OrderState): boolean {
    const m = reading.mapped;
    if (m.reason === "unknown") return false;
    if (m.state === "failed") return m.final;
    return RANK[m.state] > RANK[state];
  }

  async readSwap(swap: SwapSnapshot, ctx: EngineContext): Promise<EngineStep | null> {
    const ref = swap.upstream;
    if (!ref) throw new Error(`order ${swap.orderId} has no upstream swap`);
    const a = this.adapters.get(ref.provider);
    if (!a) throw new Error(`order ${swap.orderId} is held by ${ref.provider}, which has no credentials here`);
    const memo = this.lastReading.get(swap.orderId);
    let reading: SwapReading;
    if (memo && this.ahead(memo, swap.state)) reading = memo;
    else {
      reading = await a.readSwap(ref, ctx.signal);
      if (reading.needsChoice && a.resolveChoice && (await a.resolveChoice(ref, ctx.signal))) {
        getLogger().info(
          { orderId: swap.orderId, provider: a.name, status: reading.status },
          "provider asked for a choice: refund requested",
        );
        reading = { ...reading, mapped: { state: "failed", reason: "refunding", final: false } };
      }
      this.remember(swap.orderId, reading);
    }
    const step = this.stepFor(swap, reading);
    if (step && step.to !== null && isFinal(step.to)) this.lastReading.delete(swap.orderId);
    return step;
  }

  /**
   * A refund address given after creation, passed to the order's provider (docs/providers.md,
   * Refund addresses after creation). Its refusal of the address is INVALID_REFUND_ADDRESS; any
   * other answer that is not an outage (the swap is past taking one) is REFUND_ADDRESS_LOCKED;
   * an outage is ENGINE_UNAVAILABLE, and the user may try again.
   */
  async setRefundAddress(
    swap: SwapSnapshot,
    to: { address: string; extraId: string | null },
    ctx: EngineContext,
  ): Promise<{ refundHash: string | null }> {
    const ref = swap.upstream;
    const a = ref ? this.adapters.get(ref.provider) : undefined;
    if (!ref || !a?.setRefundAddress)
      throw new AppError("REFUND_ADDRESS_UNSUPPORTED", "This order's exchange provider cannot take a refund address after creation.");
    try {
      await a.setRefundAddress(ref, to, { userIp: ctx.clientIp, signal: ctx.signal });
    } catch (e) {
      const err = isProviderError(e) ? e : new ProviderError(a.name, "unavailable", String(e));
      getLogger().warn({ orderId: swap.orderId, provider: a.name, kind: err.kind, msg: err.message }, "provider refused a refund address");
      if (err.kind === "invalid_refund_address")
        throw new AppError("INVALID_REFUND_ADDRESS", `The provider refused the refund address: ${err.message}`);
      if (err.kind === "invalid_extra_id")
        throw new AppError("INVALID_REFUND_EXTRA_ID", `The provider refused the refund address's extra ID: ${err.message}`);
      if (err.isOutage || err.kind === "unavailable")
        throw new AppError("ENGINE_UNAVAILABLE", "The exchange provider did not answer; try again later.");
      throw new AppError("REFUND_ADDRESS_LOCKED", `The exchange provider no longer takes a refund address for this order: ${err.message}`);
    }
    // The next reading asks the provider again (its answer to the address), not a memo of before.
    this.lastReading.delete(swap.orderId);
    getLogger().info({ orderId: swap.orderId, provider: a.name }, "refund address given to the provider");
    return { refundHash: null };
  }

  /**
   * An operator's answer to the provider's pending choice (docs/operator.md, Orders and the
   * queue): passed to the order's provider; the next reading asks the provider again.
   */
  async makeChoice(swap: SwapSnapshot, choice: ProviderChoice, ctx: EngineContext): Promise<void> {
    const ref = swap.upstream;
    const a = ref ? this.adapters.get(ref.provider) : undefined;
    if (!ref || !a?.makeChoice) throw new AppError("INVALID_ORDER_STATE", "This order's exchange provider asks for no choice.");
    try {
      await a.makeChoice(ref, choice, ctx.signal);
    } catch (e) {
      const err = isProviderError(e) ? e : new ProviderError(a.name, "unavailable", String(e));
      getLogger().warn({ orderId: swap.orderId, provider: a.name, kind: err.kind, msg: err.message }, "provider refused a choice");
      if (err.kind === "invalid_address" || err.kind === "invalid_refund_address")
        throw new AppError("INVALID_REFUND_ADDRESS", `The provider refused the refund address: ${err.message}`);
      if (err.isOutage || err.kind === "unavailable")
        throw new AppError("ENGINE_UNAVAILABLE", "The exchange provider did not answer; try again later.");
      throw new AppError("INVALID_ORDER_STATE", `The exchange provider refused the choice: ${err.message}`);
    }
    this.lastReading.delete(swap.orderId);
    getLogger().info({ orderId: swap.orderId, provider: a.name, choice: choice.choice }, "operator's choice given to the provider");
  }

  private remember(orderId: string, reading: SwapReading) {
    this.lastReading.delete(orderId);
    if (this.lastReading.size >= 10_000) this.lastReading.delete(this.lastReading.keys().next().value as string);
    this.lastReading.set(orderId, reading);
  }

  /** What the order does next given the provider's reading (docs/providers.md section 3). */
  private stepFor(swap: SwapSnapshot, r: SwapReading): EngineStep | null {
    const m = r.mapped;
    const upstream: UpstreamStatus = { status: r.status, reason: openReason(m.reason) };
    const changed = swap.upstream?.status !== upstream.status || swap.upstream?.reason !== upstream.reason;
    const stay = (): EngineStep | null => (changed ? { to: null, upstream } : null);
    if (m.reason === "unknown") {
      if (changed)
        getLogger().warn({ orderId: swap.orderId, status: r.status }, "provider status not in the mapping; the order keeps its state");
      return stay();
    }
    if (m.state === "failed") {
      if (!m.final) return stay(); // refund in progress, or waiting for a refund address
      const reason = (m.reason && FAILURE_OF[m.reason]) || "provider_failed";
      const received = r.amountReceived ? depositAmount(swap, r.amountReceived) : null;
      const refund =
        reason === "refunded"
          ? { amount: depositAmount(swap, r.refundAmount ?? r.amountReceived ?? new D(0)), hash: r.refundHash }
          : received
            ? { amount: received, hash: r.refundHash }
            : null;
      return { to: "failed", reason, refund, upstream };
    }
    if (RANK[m.state] > RANK[swap.state]) {
      const next = nextOnHappyPath(swap.state);
      if (!next || next === "waiting" || next === "failed") return stay();
      return {
        to: next,
        upstream,
        ...(r.payinHash ? { payinHash: r.payinHash } : {}),
        ...(r.payoutHash ? { payoutHash: r.payoutHash } : {}),
        ...(r.amountReceived ? { amountReceived: depositAmount(swap, r.amountReceived) } : {}),
      };
    }
    // Still waiting on the provider's clock long after the deadline: the order expires here.
    if (swap.state === "waiting" && Date.now() > swap.expiresAt.getTime() + this.cfg.PROVIDERS_EXPIRY_GRACE_SECONDS * 1000)
      return { to: "failed", reason: "expired", refund: null, upstream };
    return stay();
  }
}
