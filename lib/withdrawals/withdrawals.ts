import "server-only";
import crypto from "node:crypto";
import { getAddress, parseUnits } from "viem";
import { getConfig } from "@/lib/config";
import type { Db, Tx } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { getBalances, InsufficientBalanceError, reserveWithdrawal } from "@/lib/ledger/ledger";
import { D, type Dec, floorAmount, formatAmount } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";
import { type Actor, CLI_ACTOR, recordAudit } from "@/lib/operators/audit";
import { getPrices, type Price, USD } from "@/lib/prices/prices";
import { findMember } from "@/lib/teams/team";
import { announceWithdrawal } from "./announce";
import { awaitingApprovalReason, isApprovalPayload, needsApproval } from "./approval";
import { payoutAsset, tokenOrZero } from "./assets";
import { payoutChain } from "./chains";
import { getPayoutSender } from "./sender";
import type { PayoutSender } from "./sender/types";
import { toWithdrawalRow, WITH_LEGS } from "./serialize-withdrawal";
import { type ContractSignatureCheck, typedDataJson, verifyWithdrawalSignature, type WithdrawalTerms } from "./typed-data";
import type { WithdrawalQuote, WithdrawalRow } from "./types";

// Withdrawals: a reseller's available profit, converted at live prices (lib/prices; a balance
// held in the payout asset one to one) into a payout asset and paid on-chain to the wallet they signed in with (and to no other).
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

/**
 * A suspended reseller (issue 52, lib/console/resellers) asks for no new withdrawal: neither a
 * quote nor the confirmation of one made before (403 RESELLER_SUSPENDED). Its withdrawals
 * already queued wait: the worker leaves them queued until it is restored (process.ts); those
 * already processing or sent go on, their transaction being signed or on the chain already.
 */
function refuseSuspended(reseller: { suspendedAt: Date | null }): void {
  if (reseller.suspendedAt)
    throw new AppError("RESELLER_SUSPENDED", "The platform's operator suspended this account: withdrawals wait until it is restored.");
}

export interface PriceOptions {
  resellerId: string;
  asset: string;
  currencies: string[] | "all";
  /** The payout chain (default: the first, PAYOUT_CHAIN_ID). */
  chainId?: number;
  now?: Date;
  /**
   * At most this many US dollars (at the asset's live price): the balances are taken in order
   * until it is reached, the last one in part (automatic payouts' caps, lib/payouts).
   */
  maxUsd?: string;
  /** The wallet paid (default: the reseller's; an automatic payout's is its signed instruction's, the owner's wallet). */
  destination?: string;
}

/**
 * The terms of a withdrawal of the reseller's available balances at live prices, unsigned and
 * stored nowhere: what a quote offers to sign, and what an automatic payout queues.
 */
export async function priceWithdrawal(db: Db, opts: PriceOptions): Promise<WithdrawalTerms> {
  const now = opts.now ?? new Date();
  const chain = payoutChain(opts.chainId);
  const reseller = await db.reseller.findUniqueOrThrow({ where: { id: opts.resellerId } });
  refuseSuspended(reseller);
  const asset = payoutAsset(opts.asset, chain.chainId);
  const prices = getPrices();
  // Live prices no older than PRICES_MAX_AGE_SECONDS, asked in the reseller's scope (the sandbox's market moves are per caller).
  const ask = { scope: `reseller:${opts.resellerId}`, maxAgeMs: getConfig().PRICES_MAX_AGE_SECONDS * 1000 };
  const balances = (await getBalances(db, opts.resellerId)).filter(
    (b) => new D(b.available).gt(0) && (opts.currencies === "all" || opts.currencies.includes(b.currency)),
  );
  const wanted = opts.currencies === "all" ? null : new Set(opts.currencies);
  if (wanted)
    for (const c of wanted)
      if (!balances.some((b) => b.currency === c))
        throw new AppError("INSUFFICIENT_BALANCE", `There is no available ${c} balance to withdraw.`);
  // The asset's USD price values the withdrawal (its minimum); PRICE_UNAVAILABLE without a fresh one.
  const assetUsd = await prices.price(asset.ticker, USD, ask);
  const legs: WithdrawalTerms["legs"] = [];
  let unpriced: AppError | null = null;
  for (const b of balances) {
    if (b.currency === asset.ticker) {
      // The balance is held in the payout asset: paid one to one, no conversion, no price.
      legs.push({
        currency: b.currency,
        amount: b.available,
        rate: "1",
        priceUsd: assetUsd.rate,
        priceSource: "same asset",
        pricedAt: null,
      });
      continue;
    }
    let price: Price;
    try {
      price = await prices.price(b.currency, asset.ticker, ask);
    } catch (e) {
      // Asked by name: refused. "All": the others are still paid, but a withdrawal of nothing says why.
      if (wanted || !(e instanceof AppError && e.code === "PRICE_UNAVAILABLE")) throw e;
      unpriced = e;
      continue;
    }
    const rate = new D(price.rate).toDecimalPlaces(RATE_PLACES, D.ROUND_DOWN);
    legs.push({
      currency: b.currency,
      amount: b.available,
      rate: formatAmount(rate),
      // The currency's USD price implied by the rate and the asset's USD price (informational).
      priceUsd: formatAmount(rate.mul(assetUsd.rate).toDecimalPlaces(RATE_PLACES, D.ROUND_DOWN)),
      priceSource: price.source,
      pricedAt: price.at.toISOString(),
    });
  }
  if (opts.maxUsd !== undefined) capLegs(legs, floorAmount(new D(opts.maxUsd).div(assetUsd.rate), asset.precision));
  const amount = amountOfLegs(legs, asset.precision);
  const usd = usdValue(amount, assetUsd.rate)!;
  if (!legs.length && unpriced) throw unpriced;
  // The chain's own minimum (PAYOUT_CHAINS; the first chain's is WITHDRAWAL_MIN_USD), at the live price.
  if (!legs.length || amount.lte(0) || usd.lt(chain.minUsd))
    throw new AppError("WITHDRAWAL_TOO_SMALL", `A withdrawal must be worth at least ${chain.minUsd} USD.`, {
      minUsd: chain.minUsd,
      usdValue: formatAmount(usd),
    });
  return {
    nonce: crypto.randomBytes(16).toString("hex"),
    destination: getAddress(opts.destination ?? reseller.walletAddress),
    asset: asset.ticker,
    token: tokenOrZero(asset),
    decimals: asset.decimals,
    chainId: chain.chainId,
    amount: formatAmount(amount),
    amountBaseUnits: parseUnits(formatAmount(amount), asset.decimals).toString(),
    usdValue: formatAmount(usd),
    assetPriceUsd: assetUsd.rate,
    assetPriceSource: assetUsd.source,
    assetPricedAt: assetUsd.at.toISOString(),
    fee: "0",
    feePolicy: FEE_POLICY,
    expiresAt: Math.floor((now.getTime() + QUOTE_TTL_MS) / 1000),
    legs,
  };
}

/**
 * Keeps the legs (in order) to at most `maxAsset` of the payout asset: whole while they fit, the
 * first that does not in part (floored), the rest dropped. In place.
 */
function capLegs(legs: WithdrawalTerms["legs"], maxAsset: Dec): void {
  let left = maxAsset;
  let kept = 0;
  for (const l of legs) {
    if (left.lte(0)) break;
    const worth = new D(l.amount).mul(l.rate);
    if (worth.gt(left)) {
      // At least the places the balance has (8 at least): never more than it holds.
      const places = Math.max(8, new D(l.amount).decimalPlaces());
      l.amount = formatAmount(new D(left).div(l.rate).toDecimalPlaces(places, D.ROUND_DOWN));
      left = new D(0);
    } else left = left.minus(worth);
    if (new D(l.amount).gt(0)) legs[kept++] = l;
  }
  legs.length = kept;
}

export async function quoteWithdrawal(db: Db, opts: Omit<PriceOptions, "maxUsd" | "destination">): Promise<WithdrawalQuote> {
  const terms = await priceWithdrawal(db, opts);
  const legs = terms.legs;
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
    legs: legs.map((l) => ({
      currency: l.currency,
      amount: l.amount,
      rate: l.rate,
      priceSource: l.priceSource ?? null,
      pricedAt: l.pricedAt ?? null,
    })),
    assetPriceUsd: terms.assetPriceUsd,
    assetPriceSource: terms.assetPriceSource!,
    assetPricedAt: terms.assetPricedAt!,
    typedData: typedDataJson(terms),
  };
}

/**
 * How a contract wallet's signature is asked on `chainId` (ERC-1271, through `sender`'s node), or
 * undefined when the sender has no node there; a node that cannot answer is PAYOUT_CHAIN_UNAVAILABLE.
 */
export function contractSignatureCheck(sender: PayoutSender, chainId: number): ContractSignatureCheck | undefined {
  if (!sender.isValidContractSignature || sender.chainId !== chainId) return undefined;
  return (p) =>
    sender.isValidContractSignature!(p).catch((e) => {
      throw new AppError(
        "PAYOUT_CHAIN_UNAVAILABLE",
        "The payout chain's node could not check the wallet contract's signature: try again.",
        {
          cause: e instanceof Error ? e.message : String(e),
        },
      );
    });
}

/**
 * Queues the withdrawal the wallet signed. Refuses: an unknown or foreign nonce
 * (WITHDRAWAL_NOT_FOUND), a used one (CONFIRMATION_USED), an expired one (QUOTE_EXPIRED), a
 * signature that is not the reseller wallet's signature of exactly the stored terms
 * (INVALID_SIGNATURE; a smart-contract wallet's is asked to its contract on the payout chain,
 * PAYOUT_CHAIN_UNAVAILABLE when that chain's node cannot answer), and balances that no longer cover the terms (INSUFFICIENT_BALANCE).
 */
export async function confirmWithdrawal(
  db: Db,
  opts: {
    resellerId: string;
    nonce: string;
    signature: string;
    now?: Date;
    /** The payout chain, asked about a contract wallet's signature (default: the process's sender). */
    sender?: PayoutSender;
    /**
     * The team member who signs (issue 54): an owner or a finance member of the reseller's team,
     * checked here at the call. Default: the account's wallet. Whoever signs, the withdrawal
     * goes to the account's wallet, never to the signer's own.
     */
    signer?: string;
  },
): Promise<WithdrawalRow> {
  const now = opts.now ?? new Date();
  const conf = await db.withdrawalConfirmation.findUnique({ where: { nonce: opts.nonce } });
  // An operator's approval nonce (./approval.ts) and a payout instruction's (lib/payouts) share the table: they are no quote.
  if (!conf || conf.resellerId !== opts.resellerId || isApprovalPayload(conf.payload) || isKindedPayload(conf.payload))
    throw new AppError("WITHDRAWAL_NOT_FOUND", "No such withdrawal quote.");
  if (conf.usedAt) throw new AppError("CONFIRMATION_USED", "This confirmation was already used.");
  if (conf.expiresAt <= now) throw new AppError("QUOTE_EXPIRED", "This quote has expired; ask for a new one.");
  const reseller = await db.reseller.findUniqueOrThrow({ where: { id: opts.resellerId } });
  refuseSuspended(reseller);
  const terms = JSON.parse(conf.payload) as WithdrawalTerms;
  if (terms.destination.toLowerCase() !== reseller.walletAddress)
    throw new AppError("INVALID_SIGNATURE", "The withdrawal must go to the account's wallet.");
  // The chain the terms name: a confirmation is checked there, and only there.
  const onChain = contractSignatureCheck(opts.sender ?? getPayoutSender(terms.chainId), terms.chainId);
  const signer = opts.signer?.toLowerCase() ?? reseller.walletAddress;
  if (signer !== reseller.walletAddress) {
    const member = await findMember(db, { resellerId: opts.resellerId, walletAddress: signer });
    if (member?.role !== "owner" && member?.role !== "finance")
      throw new AppError("FORBIDDEN", "Only an owner or a finance member of the account can confirm a withdrawal.");
  }
  if (!(await verifyWithdrawalSignature(terms, getAddress(signer), opts.signature, onChain)))
    throw new AppError("INVALID_SIGNATURE", "The signature is not the connected wallet's signature of this withdrawal.");

  const id = newId();
  try {
    await writeTransaction(
      db,
      async (tx) => {
        // Makes the nonce single-use.
        const used = await tx.withdrawalConfirmation.updateMany({ where: { nonce: opts.nonce, usedAt: null }, data: { usedAt: now } });
        if (used.count !== 1) throw new AppError("CONFIRMATION_USED", "This confirmation was already used.");
        await queueWithdrawal(tx, { id, resellerId: opts.resellerId, terms, now });
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

/** A WithdrawalConfirmation payload that names a kind (an approval's, a payout instruction's): never a quote. */
function isKindedPayload(payload: string): boolean {
  try {
    return (JSON.parse(payload) as { kind?: unknown }).kind !== undefined;
  } catch {
    return true;
  }
}

/**
 * Queues a withdrawal of these terms, inside the caller's transaction: the row (awaiting_approval
 * when worth more than WITHDRAWAL_APPROVAL_USD: reserved all the same, but it waits for a finance
 * operator's signed approval; the worker pays only queued ones), its balances reserved (the
 * ledger refuses to take `available` below zero: InsufficientBalanceError) and its webhook event.
 * A reseller's confirmation and an automatic payout (lib/payouts, `payoutRunId`) both queue here.
 */
export async function queueWithdrawal(
  tx: Tx,
  opts: { id: string; resellerId: string; terms: WithdrawalTerms; now: Date; payoutRunId?: string },
): Promise<void> {
  const { id, terms, now } = opts;
  const approval = needsApproval(terms.usdValue);
  await tx.withdrawal.create({
    data: {
      id,
      resellerId: opts.resellerId,
      status: approval ? "awaiting_approval" : "queued",
      stateReason: approval ? awaitingApprovalReason(approval) : null,
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
      payoutRunId: opts.payoutRunId ?? null,
      nextActionAt: now,
      createdAt: now,
      legs: {
        create: terms.legs.map((l) => ({
          currency: l.currency,
          amount: l.amount,
          rate: l.rate,
          priceUsd: l.priceUsd,
          assetPriceUsd: terms.assetPriceUsd,
          // Quotes made before live prices carry no source or time.
          priceSource: l.priceSource ?? null,
          pricedAt: l.pricedAt ? new Date(l.pricedAt) : null,
          assetPriceSource: terms.assetPriceSource ?? null,
          assetPricedAt: terms.assetPricedAt ? new Date(terms.assetPricedAt) : null,
        })),
      },
    },
  });
  await reserveWithdrawal(tx, { id, resellerId: opts.resellerId, legs: terms.legs }, now);
  await announceWithdrawal(tx, id, null, now);
}

const loadRows = (db: Db, where: { resellerId?: string; id?: string }, take = 100) =>
  db.withdrawal.findMany({ where, orderBy: { createdAt: "desc" }, take, include: WITH_LEGS });

export async function getWithdrawal(db: Db, opts: { resellerId: string; withdrawalId: string }): Promise<WithdrawalRow | null> {
  const [w] = await loadRows(db, { resellerId: opts.resellerId, id: opts.withdrawalId }, 1);
  return w ? toWithdrawalRow(w) : null;
}

export async function listWithdrawals(db: Db, opts: { resellerId?: string; take?: number } = {}): Promise<WithdrawalRow[]> {
  return (await loadRows(db, opts.resellerId ? { resellerId: opts.resellerId } : {}, opts.take ?? 100)).map(toWithdrawalRow);
}

/**
 * Operator: make a withdrawal stuck in `queued` due now (after the hot wallet was topped up).
 * Recorded in the audit log (withdrawal.retry) in the same transaction, as `by` (the CLI by default).
 */
export async function retryWithdrawal(db: Db, opts: { withdrawalId: string; now?: Date; by?: Actor }): Promise<WithdrawalRow> {
  const now = opts.now ?? new Date();
  const w = await db.withdrawal.findUnique({ where: { id: opts.withdrawalId } });
  if (!w) throw new AppError("WITHDRAWAL_NOT_FOUND", `No withdrawal ${opts.withdrawalId}.`);
  await writeTransaction(db, async (tx) => {
    const r = await tx.withdrawal.updateMany({
      where: { id: w.id, status: "queued" },
      data: { nextActionAt: now, attempts: 0, lastError: null, leaseToken: null, leaseUntil: null },
    });
    if (r.count !== 1)
      throw new AppError("INVALID_WITHDRAWAL_STATE", `Withdrawal ${w.id} is ${w.status}; only a queued one can be retried.`);
    await recordAudit(tx, opts.by ?? CLI_ACTOR, {
      action: "withdrawal.retry",
      targetType: "withdrawal",
      targetId: w.id,
      before: { status: w.status, attempts: w.attempts, lastError: w.lastError, stateReason: w.stateReason },
      after: { status: "queued", attempts: 0, nextActionAt: now.toISOString() },
      at: now,
    });
  });
  return (await getWithdrawal(db, { resellerId: w.resellerId, withdrawalId: w.id }))!;
}
