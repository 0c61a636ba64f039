import "server-only";
import crypto from "node:crypto";
import { getAddress, parseUnits } from "viem";
import { getConfig } from "@/lib/config";
import { currencyInfo } from "@/lib/dashboard/currency-info";
import type { WithdrawalQuote, WithdrawalRow, WithdrawalStatus, WithdrawalsView } from "@/lib/dashboard/types";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { getBalances, InsufficientBalanceError, type Posting, post } from "@/lib/ledger/ledger";
import { D, type Dec, floorAmount, formatAmount } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";
import { announceWithdrawal } from "./announce";
import { payoutAsset, payoutAssets, tokenOrZero } from "./assets";
import { typedDataJson, verifyWithdrawalSignature, type WithdrawalTerms } from "./typed-data";

// Withdrawals: a reseller's available profit, converted at reference prices into a payout
// asset and paid on-chain to the wallet they signed in with (and to no other).
//
//   quoteWithdrawal    the terms and the EIP-712 typed data to sign, under a single-use nonce
//   confirmWithdrawal  verifies the wallet's signature of those terms; in ONE transaction it
//                      uses the nonce, reserves the balances (available -> reserved, refused
//                      when not enough) and queues the withdrawal
//   process.ts         the worker pays it: queued -> processing -> sent -> confirmed, or failed
//                      with the reserved balances restored

export const QUOTE_TTL_MS = 5 * 60_000;
/** Rates are kept to this many places, rounded down, then used as recorded. */
const RATE_PLACES = 18;
export const FEE_POLICY = "network fee paid by the operator";

/** The withdrawal's amount from its legs at their recorded rates, floored to the asset's precision. */
export function amountOfLegs(legs: { amount: string; rate: string }[], precision: number): Dec {
  return floorAmount(
    legs.reduce((s, l) => s.plus(new D(l.amount).mul(l.rate)), new D(0)),
    precision,
  );
}

export async function quoteWithdrawal(
  db: Db,
  opts: { resellerId: string; asset: string; currencies: string[] | "all"; now?: Date },
): Promise<WithdrawalQuote> {
  const now = opts.now ?? new Date();
  const cfg = getConfig();
  const reseller = await db.reseller.findUniqueOrThrow({ where: { id: opts.resellerId } });
  const asset = payoutAsset(opts.asset);
  const assetPrice = asset.priceUsd!;
  const balances = await getBalances(db, opts.resellerId);
  const wanted = opts.currencies === "all" ? null : new Set(opts.currencies);
  const legs: WithdrawalTerms["legs"] = [];
  for (const b of balances) {
    if (wanted && !wanted.has(b.currency)) continue;
    const price = currencyInfo(b.currency).priceUsd;
    if (new D(b.available).lte(0)) continue;
    if (!price) {
      if (wanted) throw new AppError("CURRENCY_UNAVAILABLE", `${b.currency} has no reference price to convert it at.`);
      continue;
    }
    const rate = new D(price).div(assetPrice).toDecimalPlaces(RATE_PLACES, D.ROUND_DOWN);
    legs.push({ currency: b.currency, amount: b.available, rate: formatAmount(rate), priceUsd: price });
  }
  if (wanted)
    for (const c of wanted)
      if (!legs.some((l) => l.currency === c))
        throw new AppError("INSUFFICIENT_BALANCE", `There is no available ${c} balance to withdraw.`);
  const amount = amountOfLegs(legs, asset.precision);
  const usd = usdValue(amount, assetPrice)!;
  if (!legs.length || amount.lte(0) || usd.lt(cfg.WITHDRAWAL_MIN_USD))
    throw new AppError("WITHDRAWAL_TOO_SMALL", `A withdrawal must be worth at least ${cfg.WITHDRAWAL_MIN_USD} USD.`, {
      minUsd: cfg.WITHDRAWAL_MIN_USD,
      usdValue: formatAmount(usd),
    });
  const terms: WithdrawalTerms = {
    nonce: crypto.randomBytes(16).toString("hex"),
    destination: getAddress(reseller.walletAddress),
    asset: asset.ticker,
    token: tokenOrZero(asset),
    decimals: asset.decimals,
    chainId: cfg.PAYOUT_CHAIN_ID,
    amount: formatAmount(amount),
    amountBaseUnits: parseUnits(formatAmount(amount), asset.decimals).toString(),
    usdValue: formatAmount(usd),
    assetPriceUsd: assetPrice,
    fee: "0",
    feePolicy: FEE_POLICY,
    expiresAt: Math.floor((now.getTime() + QUOTE_TTL_MS) / 1000),
    legs,
  };
  await db.withdrawalConfirmation.create({
    data: { nonce: terms.nonce, resellerId: opts.resellerId, payload: JSON.stringify(terms), expiresAt: new Date(terms.expiresAt * 1000) },
  });
  return {
    nonce: terms.nonce,
    expiresAt: new Date(terms.expiresAt * 1000).toISOString(),
    destination: terms.destination,
    asset: terms.asset,
    chainId: terms.chainId,
    amount: terms.amount,
    usdValue: terms.usdValue,
    fee: terms.fee,
    feePolicy: terms.feePolicy,
    legs: legs.map((l) => ({ currency: l.currency, amount: l.amount, rate: l.rate })),
    typedData: typedDataJson(terms),
  };
}

/**
 * Queues the withdrawal the wallet signed. Refuses: an unknown or foreign nonce
 * (WITHDRAWAL_NOT_FOUND), a used one (CONFIRMATION_USED), an expired one (QUOTE_EXPIRED), a
 * signature that is not the reseller wallet's signature of exactly the stored terms
 * (INVALID_SIGNATURE), and balances that no longer cover the terms (INSUFFICIENT_BALANCE).
 */
export async function confirmWithdrawal(
  db: Db,
  opts: { resellerId: string; nonce: string; signature: string; now?: Date },
): Promise<WithdrawalRow> {
  const now = opts.now ?? new Date();
  const conf = await db.withdrawalConfirmation.findUnique({ where: { nonce: opts.nonce } });
  if (!conf || conf.resellerId !== opts.resellerId) throw new AppError("WITHDRAWAL_NOT_FOUND", "No such withdrawal quote.");
  if (conf.usedAt) throw new AppError("CONFIRMATION_USED", "This confirmation was already used.");
  if (conf.expiresAt <= now) throw new AppError("QUOTE_EXPIRED", "This quote has expired; ask for a new one.");
  const reseller = await db.reseller.findUniqueOrThrow({ where: { id: opts.resellerId } });
  const terms = JSON.parse(conf.payload) as WithdrawalTerms;
  if (terms.destination.toLowerCase() !== reseller.walletAddress)
    throw new AppError("INVALID_SIGNATURE", "The withdrawal must go to the connected wallet.");
  if (!(await verifyWithdrawalSignature(terms, getAddress(reseller.walletAddress), opts.signature)))
    throw new AppError("INVALID_SIGNATURE", "The signature is not the connected wallet's signature of this withdrawal.");

  const id = newId();
  try {
    await db.$transaction(
      async (tx) => {
        // The write first: it takes SQLite's write lock, and makes the nonce single-use.
        const used = await tx.withdrawalConfirmation.updateMany({ where: { nonce: opts.nonce, usedAt: null }, data: { usedAt: now } });
        if (used.count !== 1) throw new AppError("CONFIRMATION_USED", "This confirmation was already used.");
        await tx.withdrawal.create({
          data: {
            id,
            resellerId: opts.resellerId,
            status: "queued",
            asset: terms.asset,
            tokenAddress: BigInt(terms.token) === 0n ? null : terms.token.toLowerCase(),
            decimals: terms.decimals,
            chainId: terms.chainId,
            destination: terms.destination.toLowerCase(),
            amount: terms.amount,
            usdValue: terms.usdValue,
            feePolicy: terms.feePolicy,
            fee: terms.fee,
            confirmationNonce: terms.nonce,
            nextActionAt: now,
            createdAt: now,
            legs: {
              create: terms.legs.map((l) => ({
                currency: l.currency,
                amount: l.amount,
                rate: l.rate,
                priceUsd: l.priceUsd,
                assetPriceUsd: terms.assetPriceUsd,
              })),
            },
          },
        });
        // Reserve in the same transaction: post() refuses to take `available` below zero.
        const postings: Posting[] = terms.legs.flatMap((l) => [
          {
            resellerId: opts.resellerId,
            currency: l.currency,
            bucket: "available",
            kind: "withdrawal_reserve",
            amount: new D(l.amount).neg(),
            withdrawalId: id,
          },
          {
            resellerId: opts.resellerId,
            currency: l.currency,
            bucket: "reserved",
            kind: "withdrawal_reserve",
            amount: new D(l.amount),
            withdrawalId: id,
          },
        ]);
        await post(tx, postings, now);
        await announceWithdrawal(tx, id, null, now);
      },
      { timeout: 30_000, maxWait: 30_000 },
    );
  } catch (e) {
    if (e instanceof InsufficientBalanceError)
      throw new AppError("INSUFFICIENT_BALANCE", `The available ${e.currency} balance no longer covers this withdrawal.`);
    throw e;
  }
  return (await getWithdrawal(db, { resellerId: opts.resellerId, withdrawalId: id }))!;
}

type WithdrawalWithLegs = Awaited<ReturnType<typeof loadRows>>[number];

const loadRows = (db: Db, where: { resellerId?: string; id?: string }, take = 100) =>
  db.withdrawal.findMany({ where, orderBy: { createdAt: "desc" }, take, include: { legs: { orderBy: { currency: "asc" } } } });

export function toWithdrawalRow(w: WithdrawalWithLegs): WithdrawalRow {
  const explorer = getConfig().PAYOUT_EXPLORER_URL;
  return {
    id: w.id,
    status: w.status as WithdrawalStatus,
    asset: w.asset,
    chainId: w.chainId,
    destination: getAddress(w.destination),
    amount: w.amount,
    usdValue: w.usdValue,
    fee: w.fee,
    feePolicy: w.feePolicy,
    legs: w.legs.map((l) => ({ currency: l.currency, amount: l.amount, rate: l.rate })),
    stateReason: w.stateReason,
    txHash: w.txHash,
    txUrl: explorer && w.txHash ? `${explorer.replace(/\/+$/, "")}/tx/${w.txHash}` : null,
    createdAt: w.createdAt.toISOString(),
    finishedAt: w.finishedAt?.toISOString() ?? null,
  };
}

export async function getWithdrawal(db: Db, opts: { resellerId: string; withdrawalId: string }): Promise<WithdrawalRow | null> {
  const [w] = await loadRows(db, { resellerId: opts.resellerId, id: opts.withdrawalId }, 1);
  return w ? toWithdrawalRow(w) : null;
}

export async function listWithdrawals(db: Db, opts: { resellerId?: string; take?: number } = {}): Promise<WithdrawalRow[]> {
  return (await loadRows(db, opts.resellerId ? { resellerId: opts.resellerId } : {}, opts.take ?? 100)).map(toWithdrawalRow);
}

/** The withdrawals page: balances with USD values, the payout assets, the history. */
export async function getWithdrawalsView(db: Db, opts: { resellerId: string }): Promise<WithdrawalsView> {
  const cfg = getConfig();
  const [reseller, balances, withdrawals] = await Promise.all([
    db.reseller.findUniqueOrThrow({ where: { id: opts.resellerId } }),
    getBalances(db, opts.resellerId),
    listWithdrawals(db, { resellerId: opts.resellerId }),
  ]);
  return {
    wallet: getAddress(reseller.walletAddress),
    chainId: cfg.PAYOUT_CHAIN_ID,
    sender: cfg.PAYOUT_SENDER,
    minUsd: cfg.WITHDRAWAL_MIN_USD,
    assets: payoutAssets().map((a) => ({ ticker: a.ticker, symbol: a.symbol, priceUsd: a.priceUsd, token: a.token })),
    balances: balances.map((b) => {
      const price = currencyInfo(b.currency).priceUsd;
      const p = usdValue(b.pending, price);
      const a = usdValue(b.available, price);
      return { ...b, pendingUsd: p ? formatAmount(p) : null, availableUsd: a ? formatAmount(a) : null };
    }),
    withdrawals,
  };
}

/** Operator: make a withdrawal stuck in `queued` due now (after the hot wallet was topped up). */
export async function retryWithdrawal(db: Db, opts: { withdrawalId: string; now?: Date }): Promise<WithdrawalRow> {
  const now = opts.now ?? new Date();
  const w = await db.withdrawal.findUnique({ where: { id: opts.withdrawalId } });
  if (!w) throw new AppError("WITHDRAWAL_NOT_FOUND", `No withdrawal ${opts.withdrawalId}.`);
  const r = await db.withdrawal.updateMany({
    where: { id: w.id, status: "queued" },
    data: { nextActionAt: now, attempts: 0, lastError: null, leaseToken: null, leaseUntil: null },
  });
  if (r.count !== 1) throw new AppError("INVALID_WITHDRAWAL_STATE", `Withdrawal ${w.id} is ${w.status}; only a queued one can be retried.`);
  return (await getWithdrawal(db, { resellerId: w.resellerId, withdrawalId: w.id }))!;
}
