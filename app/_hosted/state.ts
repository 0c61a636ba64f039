import type { HostedEstimate, HostedOrderView } from "./api";
import type { FieldErrors, PageMessage } from "./messages";

// What the exchange form's server action (./actions.ts) and the form (./Exchange.tsx) share:
// the form's values as last sent, the refusals beside their fields, the estimate of those
// values, the pair's limits, and (in a widget) the order made. Pure types and helpers.

export interface ExchangeValues {
  from: string;
  to: string;
  mode: "send" | "receive";
  amount: string;
  rateType: "floating" | "fixed";
  address: string;
  extraId: string;
  refundAddress: string;
}

export interface ExchangeState {
  values: ExchangeValues;
  errors: FieldErrors;
  /** The estimate of `values` (their pair, amount, mode and rate), when one was made. */
  estimate: HostedEstimate | null;
  /** The pair's limits on the amount sent (the channel's markup applied); null when unknown. */
  range: { minAmount: string; maxAmount: string } | null;
  /** A note for the whole form (the estimate changed, check it before creating the order). */
  notice: PageMessage | null;
  /** In a widget: the order just made (the hosted page goes to its status page instead). */
  created: { id: string; token: string; statusPath: string; order: HostedOrderView } | null;
}

/** Which inputs an estimate answers: an order is made only for inputs whose estimate the user has seen. */
export const estimateKey = (v: Pick<ExchangeValues, "from" | "to" | "mode" | "amount" | "rateType">) =>
  [v.from, v.to, v.mode, v.amount.trim(), v.mode === "receive" ? "fixed" : v.rateType].join("|");

/** A compact currency for the form (its select lists): ticker, symbol, name, network, extra id's name ("" without one), popular (1/0). */
export type FormCurrency = [string, string, string, string, string, 0 | 1];
