import "server-only";
import { type Address, createPublicClient, erc20Abi, formatUnits, http, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { getConfig } from "@/lib/config";
import { type Db, getDb } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { AppError } from "@/lib/errors";
import { accountSums } from "@/lib/ledger/account-sums";
import { IN_FLIGHT_PREFIX, payoutsInFlight, treasury } from "@/lib/ledger/accounts";
import { recordTreasuryDeposit } from "@/lib/ledger/ledger";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";
import { setReconcileSource } from "@/lib/observability/metrics";
import { getPrices, USD } from "@/lib/prices/prices";
import { type PayoutAsset, payoutAsset, payoutAssets } from "./assets";

// Reconciliation (`npm run cli -- reconcile`, docs/ledger.md): the books against the world.
//
//   treasury     each payout asset's treasury account (what the books say the hot wallet holds)
//                against the hot wallet's balance on chain (PAYOUT_SENDER=evm), in base units.
//                A payout the worker has seen mined is booked out of the treasury into payouts
//                in flight until it is confirmed, so the two agree except for a payout mined
//                since the worker last looked;
//   in_flight    each payout asset's payouts mined but not yet confirmed (reported, not compared);
//   solvency     what resellers are owed (available + reserved), at live prices, against what the
//                treasury holds plus what is in flight to pay reserved balances, in USD;
//   commission   what each provider owes in commission, per currency (reported, not compared).
//
// Any difference is named; the CLI exits non-zero on one.

/** The checks that can find a difference. */
type DifferenceCheck = "treasury" | "solvency" | "commission";

export interface ReconcileLine {
  /** in_flight lines are reported, never a difference. */
  check: DifferenceCheck | "in_flight";
  name: string;
  books: string;
  actual: string | null;
}

export interface ReconcileReport {
  ok: boolean;
  lines: ReconcileLine[];
  /** One sentence per difference. */
  differences: string[];
  /** How many of the differences each check found (the /metrics gauge reconcile_differences). */
  differencesByCheck: Record<DifferenceCheck, number>;
}

/** The hot wallet's balance of an asset on the payout chain, in base units. */
export type ChainReader = (asset: PayoutAsset, wallet: Address) => Promise<bigint>;

function evmReader(rpcUrl: string): ChainReader {
  const client = createPublicClient({ transport: http(rpcUrl) });
  return (asset, wallet) =>
    asset.token
      ? client.readContract({ address: asset.token, abi: erc20Abi, functionName: "balanceOf", args: [wallet] })
      : client.getBalance({ address: wallet });
}

export async function reconcile(db: Db, opts: { assets?: string[]; readChain?: ChainReader } = {}): Promise<ReconcileReport> {
  const cfg = getConfig();
  const lines: ReconcileLine[] = [];
  const differences: string[] = [];
  const differencesByCheck: Record<DifferenceCheck, number> = { treasury: 0, solvency: 0, commission: 0 };
  const differ = (check: DifferenceCheck, text: string) => {
    differences.push(text);
    differencesByCheck[check]++;
  };
  const assets = payoutAssets().filter((a) => !opts.assets || opts.assets.includes(a.ticker));
  const treasuries = await accountSums(db, "treasury:");
  /** What the books say the hot wallet holds: the treasury account's balance, negated (amounts are credits). */
  const held = new Map(
    assets.map((a) => [a.ticker, (treasuries.get(`${treasury(cfg.PAYOUT_CHAIN_ID, a.ticker)} ${a.ticker}`) ?? new D(0)).neg()]),
  );
  /**
   * Payouts that have left the hot wallet but not yet the resellers' reserved balances (mined, not
   * yet confirmed): the account's balance, negated; negative when a confirmed payout's block left
   * the chain (paid out in the books, back in the hot wallet until it is mined again).
   */
  const inFlightSums = await accountSums(db, IN_FLIGHT_PREFIX);
  const inFlight = new Map(
    assets.map((a) => [a.ticker, (inFlightSums.get(`${payoutsInFlight(cfg.PAYOUT_CHAIN_ID, a.ticker)} ${a.ticker}`) ?? new D(0)).neg()]),
  );

  // Treasury against the chain, to the base unit.
  const readChain = opts.readChain ?? (cfg.PAYOUT_SENDER === "evm" && cfg.PAYOUT_RPC_URL ? evmReader(cfg.PAYOUT_RPC_URL) : null);
  const wallet = cfg.PAYOUT_PRIVATE_KEY ? privateKeyToAccount(cfg.PAYOUT_PRIVATE_KEY as `0x${string}`).address : null;
  for (const a of assets) {
    const name = treasury(cfg.PAYOUT_CHAIN_ID, a.ticker);
    const books = held.get(a.ticker)!;
    if (!readChain || !wallet) {
      lines.push({ check: "treasury", name, books: formatAmount(books), actual: null });
      continue;
    }
    const onChain = await readChain(a, wallet);
    const actual = formatUnits(onChain, a.decimals);
    lines.push({ check: "treasury", name, books: formatAmount(books), actual });
    let booked: bigint | null = null;
    try {
      booked = parseUnits(formatAmount(books), a.decimals);
    } catch {
      booked = null; // more places than the asset has: cannot match
    }
    if (booked !== onChain)
      differ(
        "treasury",
        `${name}: the books hold ${formatAmount(books)} ${a.ticker}, the hot wallet ${wallet.toLowerCase()} holds ${actual} (difference ${formatAmount(new D(actual).minus(books))})`,
      );
  }
  // What is in flight, per asset: explains a treasury below what resellers are still owed.
  for (const a of assets) {
    const amount = inFlight.get(a.ticker)!;
    if (!amount.isZero())
      lines.push({ check: "in_flight", name: payoutsInFlight(cfg.PAYOUT_CHAIN_ID, a.ticker), books: formatAmount(amount), actual: null });
  }

  // Solvency: owed to resellers (available + reserved) at live prices, against the treasury, in USD.
  if (!opts.assets) {
    const balances = await db.balance.findMany({ select: { currency: true, available: true, reserved: true } });
    const owed = new Map<string, Dec>();
    for (const b of balances) owed.set(b.currency, (owed.get(b.currency) ?? new D(0)).plus(b.available).plus(b.reserved));
    const prices = getPrices();
    let owedUsd = new D(0);
    let heldUsd = new D(0);
    const unpriced: string[] = [];
    for (const [currency, amount] of [...owed].sort(([x], [y]) => x.localeCompare(y))) {
      if (amount.isZero()) continue;
      const p = await prices.tryPrice(currency, USD);
      if (p) owedUsd = owedUsd.plus(usdValue(amount, p.rate)!);
      else unpriced.push(currency);
    }
    // The treasury, plus what is in flight: it pays reserved balances, which are still owed.
    for (const a of assets) {
      const amount = held.get(a.ticker)!.plus(inFlight.get(a.ticker)!);
      if (amount.isZero()) continue;
      const p = await prices.tryPrice(a.ticker, USD);
      if (p) heldUsd = heldUsd.plus(usdValue(amount, p.rate)!);
      else unpriced.push(a.ticker);
    }
    lines.push({
      check: "solvency",
      name: "owed to resellers vs treasury (USD)",
      books: formatAmount(owedUsd),
      actual: formatAmount(heldUsd),
    });
    if (unpriced.length)
      differ("solvency", `solvency: no live price for ${[...new Set(unpriced)].join(", ")}: the solvency line cannot be drawn`);
    else if (heldUsd.lt(owedUsd))
      differ(
        "solvency",
        `solvency: resellers are owed ${formatAmount(owedUsd)} USD, the treasury holds ${formatAmount(heldUsd)} USD (short ${formatAmount(owedUsd.minus(heldUsd))})`,
      );

    // Commission receivable per provider and currency (negative balances: owed to the operator).
    for (const [key, sum] of [...(await accountSums(db, "provider:"))].sort(([x], [y]) => x.localeCompare(y))) {
      const [account, currency] = key.split(" ");
      if (!account.endsWith(":receivable") || sum.isZero()) continue;
      lines.push({ check: "commission", name: `${account} ${currency}`, books: formatAmount(sum.neg()), actual: null });
    }
  }
  return { ok: differences.length === 0, lines, differences, differencesByCheck };
}

/**
 * Books money the operator put into the hot wallet from outside (`treasury:deposit`): the
 * treasury account of the asset against the outside world. Reconciliation compares the
 * treasury with the chain, so every top-up must be booked (and a withdrawal from the hot
 * wallet booked as a negative deposit).
 */
export async function recordHotWalletDeposit(db: Db, opts: { asset: string; amount: string; now?: Date }): Promise<void> {
  const asset = payoutAsset(opts.asset);
  const amount = new D(opts.amount);
  if (!amount.isFinite() || amount.isZero() || amount.decimalPlaces() > asset.decimals)
    throw new AppError("INVALID_AMOUNT", `The amount must be a non-zero decimal with at most ${asset.decimals} places.`);
  await writeTransaction(db, (tx) =>
    recordTreasuryDeposit(tx, { chainId: getConfig().PAYOUT_CHAIN_ID, asset: asset.ticker, amount }, opts.now),
  );
}

/** /metrics' reconciliation gauges (lib/observability/metrics.ts) run this: called by the app server and the worker at start. */
export function registerReconcileGauges(): void {
  setReconcileSource(() => reconcile(getDb()));
}
