import type { Order } from "@/lib/db/client";
import { orderRow } from "@/lib/orders/reserve-order";

/** A fixed time for fixture rows. */
export const FIXTURE_T0 = new Date("2026-11-20T10:00:00.000Z");

/** A reservation's data (createOrder's), every value fixed: a keyed btc→eth order with a 100 bps markup, waiting. */
export function fixtureReservation(over: Partial<Order>): Order {
  const t0 = FIXTURE_T0;
  return orderRow({
    id: "0123456789abcdef01234567",
    resellerId: "r-fixture",
    apiKeyId: null,
    channel: "key:k1",
    accessTokenHash: null,
    fromCurrency: "btc",
    toCurrency: "eth",
    fromAmount: "0.1",
    rate: "15.5",
    rawToAmount: "1.55",
    toAmount: "1.534",
    platformFeeBps: 25,
    markupBps: 100,
    profit: "0.016",
    payinAddress: null,
    payoutAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
    payoutExtraId: null,
    refundAddress: null,
    refundExtraId: null,
    status: "waiting",
    expiresAt: new Date(t0.getTime() + 3_600_000),
    rateType: "floating",
    rateId: null,
    fixedUntil: null,
    leaseToken: null,
    leaseUntil: null,
    createdAt: t0,
    updatedAt: t0,
    idempotencyScope: null,
    idempotencyKey: null,
    requestHash: null,
    ...over,
  });
}
