// The README's flow against a sandbox server: estimate, create, the sandbox's deposit, follow
// to finished; then a 422 and a 429 handled by their codes.
//   RESELLER_API_URL=http://localhost:3000/api/v1 RESELLER_ADDRESS=0x... [RESELLER_API_KEY=rsk_live_...] npx tsx examples/flow.ts
import { createClient, isApiError, ResellerApiError } from "@reseller/client";

const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
const client = createClient({ baseUrl: env.RESELLER_API_URL ?? "http://localhost:3000/api/v1", apiKey: env.RESELLER_API_KEY });
const address = env.RESELLER_ADDRESS ?? "0x52908400098527886E0F7030069857D2E4169EE7"; // an ETH address of yours

const estimate = await client.estimate({ fromCurrency: "btc", toCurrency: "eth", fromAmount: "0.01" });
console.log(`0.01 BTC -> ${estimate.toAmount} ETH (fee ${estimate.fee}), limits ${estimate.minAmount}..${estimate.maxAmount}`);

// An Idempotency-Key is sent (a random one; pass { idempotencyKey } to choose it): a retry never makes two orders.
const order = await client.createExchange({ from: "btc", to: "eth", amount: "0.01", address });
console.log(`order ${order.id}: send ${order.fromAmount} BTC to ${order.payinAddress}`);

await client.sandboxDeposit(order.id); // the sandbox only: "the user paid"
const done = await client.followOrder(order.id, { onStatus: (status) => console.log(`  ${status}`) });
console.log(`order ${done.id} ${done.status}, payout ${done.payoutHash ?? "-"}`);

// Errors are ResellerApiError, told apart by code.
try {
  await client.createExchange({ from: "btc", to: "eth", amount: "0.01", address: "not-an-address" });
} catch (e) {
  if (isApiError(e, "INVALID_ADDRESS")) console.log(`refused as expected: ${e.code} (${e.message})`);
  else throw e;
}

try {
  // Retries off: over the limit, the 429 is thrown at once instead of being waited out.
  await client.listCurrencies({ retry: false });
} catch (e) {
  if (e instanceof ResellerApiError && e.is("RATE_LIMITED", "DAILY_LIMIT_EXCEEDED")) console.log(`slow down: retry in ${e.retryAfter} s`);
  else throw e;
}
