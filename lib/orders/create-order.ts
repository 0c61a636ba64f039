import "server-only";
import crypto from "node:crypto";
import type { LosslessNumber } from "lossless-json";
import { getConfig } from "@/lib/config";
import { validateAddress, validateExtraId } from "@/lib/currencies";
import type { Db, Order } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/client";
import { type EngineContext, getEngine } from "@/lib/engine";
import { AppError } from "@/lib/errors";
import { newOrderId } from "@/lib/ids";
import type { Caller } from "@/lib/keys/api-keys";
import { recordPendingProfit } from "@/lib/ledger/ledger";
import { formatAmount } from "@/lib/money/decimal";
import { applyRate } from "@/lib/quotes/compute-quote";
import { getTermsWithinLimits, parseAmount, resolvePair } from "./pricing";

export interface CreateOrderInput {
  from: string;
  to: string;
  /** A decimal string, or a JSON number as sent (lossless-json). */
  amount: string | LosslessNumber;
  address: string;
  extraId?: string | null;
  refundAddress?: string | null;
  refundExtraId?: string | null;
}

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
    String(input.amount).trim(),
    input.address.trim(),
    blankToNull(input.extraId),
    blankToNull(input.refundAddress),
    blankToNull(input.refundExtraId),
  ];
  return crypto.createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
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

export async function createOrder(
  db: Db,
  opts: { input: CreateOrderInput; caller: Caller | null; ctx: EngineContext; idempotencyKey?: string | null; now?: Date },
): Promise<CreateOrderResult> {
  const { input, caller, ctx } = opts;
  const idemKey = opts.idempotencyKey ?? null;
  const hash = requestHash(input);
  if (idemKey) {
    const replay = await findReplay(db, ctx.scope, idemKey, hash);
    if (replay) return { order: replay, replayed: true };
  }

  const { from, to } = resolvePair(input.from, input.to);
  const fromAmount = parseAmount(input.amount, from);

  const address = input.address.trim();
  if (!validateAddress(to, address))
    throw new AppError("INVALID_ADDRESS", `The address is not a valid ${to.name} (${to.network}) address.`);
  const extraId = blankToNull(input.extraId);
  if (extraId !== null && !validateExtraId(to, extraId))
    throw new AppError(
      "INVALID_EXTRA_ID",
      to.hasExtraId ? `The ${to.extraIdName ?? "extra ID"} is not valid for ${to.ticker}.` : `${to.ticker} does not use an extra ID.`,
    );
  const refundAddress = blankToNull(input.refundAddress);
  if (refundAddress !== null && !validateAddress(from, refundAddress))
    throw new AppError("INVALID_REFUND_ADDRESS", `The refund address is not a valid ${from.name} (${from.network}) address.`);
  const refundExtraId = blankToNull(input.refundExtraId);
  if (refundExtraId !== null && !validateExtraId(from, refundExtraId))
    throw new AppError(
      "INVALID_REFUND_EXTRA_ID",
      from.hasExtraId
        ? `The refund ${from.extraIdName ?? "extra ID"} is not valid for ${from.ticker}.`
        : `${from.ticker} does not use an extra ID.`,
    );

  const terms = await getTermsWithinLimits(from, to, fromAmount, ctx);
  const markupBps = caller?.markupBps ?? 0;
  const q = applyRate(fromAmount, terms.rate, to.precision, markupBps);
  const id = newOrderId();
  const deposit = await getEngine().createDeposit({ id, from, to, fromAmount }, ctx);

  const cfg = getConfig();
  const now = opts.now ?? new Date();
  const data = {
    id,
    resellerId: caller?.resellerId ?? null,
    apiKeyId: caller?.apiKeyId ?? null,
    fromCurrency: from.ticker,
    toCurrency: to.ticker,
    fromAmount: formatAmount(fromAmount),
    rate: terms.rate.toFixed(),
    rawToAmount: formatAmount(q.rawToAmount),
    toAmount: formatAmount(q.toAmount),
    platformFeeBps: terms.platformFeeBps,
    markupBps,
    profit: formatAmount(q.profit),
    payinAddress: deposit.payinAddress,
    payinExtraId: deposit.payinExtraId,
    payoutAddress: address,
    payoutExtraId: extraId,
    refundAddress,
    refundExtraId,
    status: "waiting",
    expiresAt: new Date(now.getTime() + cfg.ORDER_TTL_SECONDS * 1000),
    nextActionAt: cfg.SIM_AUTO_DEPOSIT_SECONDS > 0 ? new Date(now.getTime() + cfg.SIM_AUTO_DEPOSIT_SECONDS * 1000) : null,
    createdAt: now,
    idempotencyScope: idemKey ? ctx.scope : null,
    idempotencyKey: idemKey,
    requestHash: idemKey ? hash : null,
  };

  try {
    const order = await db.$transaction(async (tx) => {
      const o = await tx.order.create({ data });
      await tx.orderEvent.create({ data: { orderId: id, status: "waiting", at: now } });
      await recordPendingProfit(tx, o, q.profit);
      return o;
    });
    return { order, replayed: false };
  } catch (e) {
    // A concurrent request with the same Idempotency-Key won the insert: answer with its order.
    if (idemKey && isUniqueViolation(e)) {
      const replay = await findReplay(db, ctx.scope, idemKey, hash);
      if (replay) return { order: replay, replayed: true };
    }
    throw e;
  }
}
