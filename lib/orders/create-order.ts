import "server-only";
import crypto from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { LosslessNumber } from "lossless-json";
import { keyChannel } from "@/lib/channels/channels";
import { getConfig } from "@/lib/config";
import { addressRejectionReason, type Currency, validateAddress, validateExtraId } from "@/lib/currencies";
import type { Db, Order } from "@/lib/db/client";
import { isUniqueViolation, providerOf } from "@/lib/db/client";
import type { RateType } from "@/lib/domain/order-states";
import { type EngineContext, getEngine, type OpenedSwap } from "@/lib/engine";
import { callEngine } from "@/lib/engine/call";
import { AppError } from "@/lib/errors";
import { newOrderId } from "@/lib/ids";
import { leaseMs, newLeaseToken } from "@/lib/jobs/lease";
import type { Caller } from "@/lib/keys/api-keys";
import { formatAmount } from "@/lib/money/decimal";
import { type Priced, priceRequest, takeRateQuote } from "@/lib/quotes/get-estimate";
import { parseAmount, resolvePair } from "@/lib/quotes/pricing";
import { claimRateQuote } from "./claim-rate-quote";
import { adoptableSwap, intentHooks, markCommitted } from "./intents";
import { openOrderPostgres } from "./open-order-postgres";
import { openOrderPrisma } from "./open-order-prisma";
import { openOrderSqlite } from "./open-order-sqlite";
import { openedRow, openingPlan } from "./opening";
import { orderRow, type Reservation, reserveOrder } from "./reserve-order";
import { engineDeadlineMs, openSwapRequest } from "./swap";

export interface CreateOrderInput {
  from: string;
  to: string;
  /** A decimal string, or a JSON number as sent (lossless-json). Absent when toAmount is given. */
  amount?: string | LosslessNumber;
  /** An extension (fixed rate only): the amount the user receives instead of the amount sent. */
  toAmount?: string | LosslessNumber;
  /** An extension: fixed locks toAmount; floating (the default) prices the deposit when it is exchanged. */
  rateType?: RateType;
  /** An extension: the rateId of a fixed-rate estimate. */
  rateId?: string;
  address: string;
  extraId?: string | null;
  refundAddress?: string | null;
  refundExtraId?: string | null;
}

/**
 * Who creates the order: an API key's caller, or (apiKeyId null) the hosted page or a widget
 * of the reseller, with its channel's markup. `channel` (lib/channels) defaults to the key's.
 */
export type OrderCaller = Omit<Caller, "apiKeyId"> & {
  apiKeyId: string | null;
  channel?: string;
  /** Hosted orders: SHA-256 of the status link's secret (lib/hosted). */
  accessTokenHash?: string;
};

export interface CreateOrderResult {
  order: Order;
  /** True when an Idempotency-Key matched an earlier identical request. */
  replayed: boolean;
}

const blankToNull = (v: string | null | undefined) => (v == null || v.trim() === "" ? null : v.trim());

/** Hash of the request as the client meant it, so a retry with the same key and body replays. */
function requestHash(input: CreateOrderInput): string {
  const canonical = [
    input.from.toLowerCase(),
    input.to.toLowerCase(),
    input.amount === undefined ? null : String(input.amount).trim(),
    input.address.trim(),
    blankToNull(input.extraId),
    blankToNull(input.refundAddress),
    blankToNull(input.refundExtraId),
  ];
  // The extensions join the hash only when used, so that a spec-only request hashes as before.
  if (input.toAmount !== undefined || input.rateType !== undefined || input.rateId !== undefined)
    canonical.push(input.toAmount === undefined ? null : String(input.toAmount).trim(), input.rateType ?? null, input.rateId ?? null);
  return crypto.hash("sha256", JSON.stringify(canonical), "hex");
}

async function findReplay(db: Db, scope: string, key: string, hash: string): Promise<Order | null> {
  const existing = await db.order.findUnique({
    where: { idempotencyScope_idempotencyKey: { idempotencyScope: scope, idempotencyKey: key } },
  });
  if (!existing) return null;
  if (existing.requestHash !== hash)
    throw new AppError("IDEMPOTENCY_CONFLICT", "This Idempotency-Key was already used with a different request body.");
  return existing;
}

/** Drops a reservation this request still holds and never opened: nothing was promised to anyone, so a retry starts afresh. */
const dropReservation = (db: Db, id: string, token: string) =>
  db.order.deleteMany({ where: { id, leaseToken: token, payinAddress: null } });

/** How often a request that lost an idempotency race looks whether the winner opened the order. */
const OPENING_POLL_MS = 25;

const openingFailed = () => new AppError("ENGINE_UNAVAILABLE", "The exchange engine could not open this order; send the request again.");

/**
 * Opens a reserved order with the engine and commits what makes it an order: the deposit
 * address, its first timeline event and the reseller's pending profit. Only the holder of the
 * order's claim calls the engine, keyed by the order id. When the engine fails, the
 * reservation is dropped (nothing was promised to anyone), so a retry starts afresh.
 */
async function openOrder(
  db: Db,
  reserved: Order,
  token: string,
  ctx: EngineContext,
  opts: { justReserved?: boolean } = {},
): Promise<Order> {
  let swap: OpenedSwap;
  let adopted = false;
  try {
    // An exchange the provider already made for this order (its first opening died after the
    // answer was recorded) is adopted, never made twice (lib/orders/intents.ts). Only a claim's
    // holder records an intent, and a claim is taken over only once it has run out: so an order
    // this request has just reserved, whose claim has more than half to run, has none to look
    // for (the half is the margin for clocks of other instances running ahead). That skips a
    // statement of every order created.
    const unclaimedByOthers =
      opts.justReserved && reserved.leaseUntil !== null && Date.now() < reserved.leaseUntil.getTime() - engineDeadlineMs();
    const found = unclaimedByOthers ? null : await adoptableSwap(db, reserved.id);
    adopted = found !== null;
    swap =
      found?.swap ??
      (await callEngine(engineDeadlineMs(), ctx, (c) =>
        getEngine().openSwap(openSwapRequest(reserved), { ...c, intents: intentHooks(db) }),
      ));
  } catch (e) {
    await dropReservation(db, reserved.id, token);
    throw e;
  }
  const opened = await commitOpened(db, reserved, token, swap, new Date());
  if (opened) await markCommitted(db, reserved.id, swap, adopted ? "adopted" : "committed");
  // Our claim ran out and another request took the opening over (same order id, same deposit).
  return opened ?? awaitOpened(db, reserved, ctx);
}

/**
 * Opens an order that nothing else can refer to before it is answered (no Idempotency-Key, no
 * rateId: createOrder), without a reservation: the engine is asked first, then the order is
 * written once, opened, where a reservation took an insert and an update (two commits). The
 * engine's work stays accounted for: a provider's exchange has its intent written before it is
 * made, and the order is committed only while that intent is open (open-order-postgres.ts); a
 * crash in between leaves the intent, which the worker settles as abandoned (nobody was shown
 * its deposit address: lib/orders/recover-intents.ts).
 */
async function openUnreserved(db: Db, data: Reservation, ctx: EngineContext): Promise<Order> {
  const order = orderRow(data);
  const swap = await callEngine(engineDeadlineMs(), ctx, (c) =>
    getEngine().openSwap(openSwapRequest(order), { ...c, intents: intentHooks(db) }),
  );
  const opened = await commitOpened(db, order, null, swap, new Date());
  // The worker settled the exchange's intent first (this request outlived a claim's length).
  if (!opened) throw openingFailed();
  return opened;
}

/**
 * Commits what makes an order an order, from the engine's answer: the deposit address, its
 * first timeline event and the reseller's pending profit. `token`: the claim on a reserved
 * order, or null for a new order inserted opened (openUnreserved), which also marks its
 * provider exchange's intent committed. Null when the claim no longer holds the order (someone
 * else opened it), or the new order's intent was settled by a recovery.
 */
export async function commitOpened(db: Db, reserved: Order, token: string | null, swap: OpenedSwap, now: Date): Promise<Order | null> {
  // A fixed rate is a promise: an upstream engine's firm quote must pay at least the locked amount.
  if (reserved.rateType === "fixed" && swap.terms && swap.terms.toAmount.lt(reserved.toAmount)) {
    if (token !== null) await dropReservation(db, reserved.id, token);
    throw new AppError("RATE_EXPIRED", "The fixed rate can no longer be honoured; get a new estimate.");
  }
  // Every row the opening writes, computed once (opening.ts); each path below only writes it.
  const plan = openingPlan(openedRow(reserved, swap, now), token, now);
  const openInOne = providerOf(db) === "postgresql" ? openOrderPostgres : openOrderSqlite;
  if (await openInOne(db, plan)) return plan.order;
  return openOrderPrisma(db, plan);
}

/**
 * For a request that found its Idempotency-Key already taken: the order once it is open.
 * While the winner holds its claim this only reads; if the winner died (its claim expired
 * with the order still unopened), this request takes the claim and opens the order itself.
 */
async function awaitOpened(db: Db, order: Order, ctx: EngineContext): Promise<Order> {
  let o: Order | null = order;
  for (;;) {
    if (!o) throw openingFailed();
    if (o.payinAddress !== null) return o;
    const now = new Date();
    if (o.leaseUntil && o.leaseUntil < now) {
      const token = newLeaseToken();
      const r = await db.order.updateMany({
        where: { id: o.id, payinAddress: null, leaseToken: o.leaseToken, leaseUntil: { lt: now } },
        data: { leaseToken: token, leaseUntil: new Date(now.getTime() + leaseMs()) },
      });
      if (r.count === 1) return openOrder(db, o, token, ctx);
    }
    await sleep(OPENING_POLL_MS);
    o = await db.order.findUnique({ where: { id: o.id } });
  }
}

/** The registry's reason, when it has one (e.g. an Ethereum address given for Starknet). */
function withReason(message: string, currency: Currency, address: string): string {
  const reason = addressRejectionReason(currency, address);
  return reason ? `${message} ${reason}` : message;
}

/**
 * Creates an order. With an Idempotency-Key or a rateId, the row is reserved first (with a
 * claim, and the key's unique index deciding races), and only then is the engine asked to open
 * the swap: concurrent requests with one key open one upstream swap, and a retry finds the
 * order. Without either, nothing can race it: the engine is asked first and the order written
 * once, opened (openUnreserved). The answer carries the payinAddress: the request waits for it.
 */
export async function createOrder(
  db: Db,
  opts: { input: CreateOrderInput; caller: OrderCaller | null; ctx: EngineContext; idempotencyKey?: string | null; now?: Date },
): Promise<CreateOrderResult> {
  const { input, caller, ctx } = opts;
  const idemKey = opts.idempotencyKey ?? null;
  const hash = requestHash(input);
  if (idemKey) {
    const replay = await findReplay(db, ctx.scope, idemKey, hash);
    if (replay) return { order: await awaitOpened(db, replay, ctx), replayed: true };
  }

  const { from, to } = resolvePair(input.from, input.to);
  const rateType = input.rateType ?? "floating";
  if (rateType !== "fixed" && (input.toAmount !== undefined || input.rateId !== undefined))
    throw new AppError("INVALID_REQUEST", "toAmount and rateId need rateType fixed.", { field: "rateType" });
  // Amounts are checked before addresses, as before the extensions (a bad amount is a 422 INVALID_AMOUNT).
  if (input.toAmount !== undefined) parseAmount(input.toAmount, to);
  else parseAmount(input.amount, from);

  const address = input.address.trim();
  if (!validateAddress(to, address))
    throw new AppError("INVALID_ADDRESS", withReason(`The address is not a valid ${to.name} (${to.network}) address.`, to, address));
  const extraId = blankToNull(input.extraId);
  if (extraId !== null && !validateExtraId(to, extraId))
    throw new AppError(
      "INVALID_EXTRA_ID",
      to.hasExtraId ? `The ${to.extraIdName ?? "extra ID"} is not valid for ${to.ticker}.` : `${to.ticker} does not use an extra ID.`,
    );
  const refundAddress = blankToNull(input.refundAddress);
  if (refundAddress !== null && !validateAddress(from, refundAddress))
    throw new AppError(
      "INVALID_REFUND_ADDRESS",
      withReason(`The refund address is not a valid ${from.name} (${from.network}) address.`, from, refundAddress),
    );
  const refundExtraId = blankToNull(input.refundExtraId);
  if (refundExtraId !== null && !validateExtraId(from, refundExtraId))
    throw new AppError(
      "INVALID_REFUND_EXTRA_ID",
      from.hasExtraId
        ? `The refund ${from.extraIdName ?? "extra ID"} is not valid for ${from.ticker}.`
        : `${from.ticker} does not use an extra ID.`,
    );

  const cfg = getConfig();
  const now = opts.now ?? new Date();
  const amounts = { fromAmount: input.amount, toAmount: input.toAmount };
  // A rateId brings its own terms (markup included, as quoted); otherwise price it now.
  let markupBps = caller?.markupBps ?? 0;
  let priced: Priced;
  if (input.rateId) {
    const taken = await takeRateQuote(db, { rateId: input.rateId, resellerId: caller?.resellerId ?? null, from, to, ...amounts, now });
    priced = taken.priced;
    markupBps = taken.quote.markupBps;
  } else priced = await priceRequest(from, to, amounts, ctx, markupBps);
  const { fromAmount, terms, q } = priced;
  const expiresAt = new Date(now.getTime() + cfg.ORDER_TTL_SECONDS * 1000);
  // Without an Idempotency-Key or a rateId, no other request can name this order before it is
  // answered: nothing to reserve it against, so no claim either.
  const token = idemKey || input.rateId ? newLeaseToken() : null;
  const data = {
    id: newOrderId(),
    resellerId: caller?.resellerId ?? null,
    apiKeyId: caller?.apiKeyId ?? null,
    channel: caller?.channel ?? (caller?.apiKeyId ? keyChannel(caller.apiKeyId) : null),
    accessTokenHash: caller?.accessTokenHash ?? null,
    fromCurrency: from.ticker,
    toCurrency: to.ticker,
    fromAmount: formatAmount(fromAmount),
    rate: terms.rate.toFixed(),
    rawToAmount: formatAmount(q.rawToAmount),
    toAmount: formatAmount(q.toAmount),
    platformFeeBps: terms.platformFeeBps,
    markupBps,
    profit: formatAmount(q.profit),
    payinAddress: null,
    payoutAddress: address,
    payoutExtraId: extraId,
    refundAddress,
    refundExtraId,
    status: "waiting",
    expiresAt,
    rateType,
    rateId: input.rateId ?? null,
    fixedUntil: rateType === "fixed" ? new Date(Math.min(expiresAt.getTime(), now.getTime() + cfg.FIXED_RATE_WINDOW_SECONDS * 1000)) : null,
    leaseToken: token,
    leaseUntil: token === null ? null : new Date(now.getTime() + leaseMs()),
    createdAt: now,
    updatedAt: now,
    idempotencyScope: idemKey ? ctx.scope : null,
    idempotencyKey: idemKey,
    requestHash: idemKey ? hash : null,
  };

  if (token === null) return { order: await openUnreserved(db, data, ctx), replayed: false };
  let reserved: Order;
  try {
    reserved = await reserveOrder(db, data);
  } catch (e) {
    // A concurrent request with the same Idempotency-Key reserved first: answer with its order.
    if (idemKey && isUniqueViolation(e)) {
      const replay = await findReplay(db, ctx.scope, idemKey, hash);
      if (replay) return { order: await awaitOpened(db, replay, ctx), replayed: true };
    }
    throw e;
  }
  if (input.rateId) {
    try {
      await claimRateQuote(db, { rateId: input.rateId, orderId: reserved.id });
    } catch (e) {
      await dropReservation(db, reserved.id, token);
      throw e;
    }
  }
  return { order: await openOrder(db, reserved, token, ctx, { justReserved: true }), replayed: false };
}
