import type { Order } from "@/lib/db/client";

/**
 * A stored order's row with every required column, for tests that seed orders straight into
 * the database (many at once, or in states the API would take time to reach); `over` sets the rest.
 */
export const orderRow = (id: string, over: Partial<Order> = {}) => ({
  id,
  fromCurrency: "btc",
  toCurrency: "eth",
  fromAmount: "0.1",
  rate: "1",
  rawToAmount: "1",
  toAmount: "1",
  platformFeeBps: 25,
  markupBps: 0,
  profit: "0",
  payinAddress: `addr-${id}`,
  payoutAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
  status: "waiting",
  expiresAt: new Date(Date.now() + 3_600_000),
  ...over,
});
