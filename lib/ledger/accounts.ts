// The ledger's accounts besides the resellers' own (docs/ledger.md). A reseller's accounts are
// the buckets of its balances (LedgerEntry rows, `reseller:<id>:<bucket>` in the docs); every
// other account is a name on JournalLine rows. Amounts are credits: positive is what the
// operator owes (a reseller's balance, revenue earned), negative what it holds or is owed
// (the hot wallet, a provider's commission due). Each journal sums to zero per currency.

/** The platform's revenue: the platform fee of every finished order. */
export const REVENUE = "platform:revenue";
/** Currency converted at a withdrawal's recorded rates: in at the balance's currency, out in the payout asset. */
export const CONVERSION = "conversion";
/** Network fees paid by the hot wallet (optional on a payout's journal: its receipt says). */
export const NETWORK_FEES = "network_fees";
/** Money that comes from or goes to outside the books (the operator's own funding, a test's credit). */
export const WORLD = "world";

/** The commission a provider owes the operator on its finished orders (the simulated engine counts as one). */
export const providerReceivable = (provider: string | null) => `provider:${provider ?? "simulated"}:receivable`;
/** The commission a provider is expected to owe on open orders: pending until the order finishes (posted) or fails (voided). */
export const providerPending = (provider: string | null) => `provider:${provider ?? "simulated"}:pending`;
/** The hot wallet's holding of one asset on one chain. */
export const treasury = (chainId: number, asset: string) => `treasury:${chainId}:${asset}`;
/**
 * Payouts of one asset on one chain that the chain and the books do not yet agree on: a payout
 * mined but not yet confirmed has left the hot wallet (treasury) without being paid out of the
 * reseller's reserved balance (negative, like the treasury: the operator's money in transit); a
 * confirmed payout whose block left the chain was paid out in the books but is back in the hot
 * wallet (positive). Zero for every withdrawal that is confirmed or failed.
 */
export const payoutsInFlight = (chainId: number, asset: string) => `payouts:in_flight:${chainId}:${asset}`;
/** Every payouts-in-flight account's name starts so. */
export const IN_FLIGHT_PREFIX = "payouts:in_flight:";

const ACCOUNT =
  /^(platform:revenue|conversion|network_fees|world|provider:[a-z0-9_-]+:(receivable|pending)|treasury:\d+:[a-z0-9]+|payouts:in_flight:\d+:[a-z0-9]+)$/;

export const isAccountName = (name: string) => ACCOUNT.test(name);
