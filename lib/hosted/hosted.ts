import "server-only";
import crypto from "node:crypto";
import { base58 } from "@scure/base";
import QRCode from "qrcode";
import { type HostedChannel, resolveHostedChannel } from "@/lib/channels/channels";
import { addressRejectionReason, type Currency, getCurrency, listCurrencies, validateAddress, validateExtraId } from "@/lib/currencies";
import type { Db, Order, OrderEvent } from "@/lib/db/client";
import type { RateType } from "@/lib/domain/order-states";
import { getSandboxEngine } from "@/lib/engine";
import { AppError } from "@/lib/errors";
import { bpsToPercent, D } from "@/lib/money/decimal";
import { num } from "@/lib/money/json-number";
import { type CreateOrderInput, createOrder } from "@/lib/orders/create-order";
import { getOrderForToken, hashOrderToken } from "@/lib/orders/get-order";
import { reportSandboxDeposit } from "@/lib/orders/report-deposit";
import { serializeOrderStatus } from "@/lib/orders/serialize-order";
import { getEstimate } from "@/lib/quotes/get-estimate";
import { amountLimits } from "@/lib/quotes/pricing";
import { getBrand, type PublicBrand } from "@/lib/resellers/brand";

// The hosted exchange page and the widget (docs/widgets.md): what their own small JSON API
// (lib/http/hosted.ts) does, for end users who never hold a key. A request names its page
// (a reseller, or a widget); the order gets that channel and its markup. The order's status
// link carries a secret of its own: only its SHA-256 is stored, and the id alone opens nothing.

export type HostedSelector = { reseller?: string | null; widget?: string | null };

/** Tickers shown first in the currency picker, in this order; the rest follow by name. */
const POPULAR = ["btc", "eth", "usdterc20", "usdttrc20", "usdc", "sol", "bnb", "xrp", "ltc", "trx", "doge", "ton", "xmr", "ada"];

export interface HostedCurrency {
  ticker: string;
  symbol: string;
  name: string;
  network: string;
  hasExtraId: boolean;
  extraIdName: string | null;
  popular: boolean;
  minAmount: string;
  maxAmount: string;
}

let currencies: HostedCurrency[] | null = null;

/** The currencies a user can pick: available ones, the popular first, then by name; the network is always given. */
export function hostedCurrencies(): HostedCurrency[] {
  if (!currencies) {
    const rank = (t: string) => {
      const i = POPULAR.indexOf(t);
      return i === -1 ? POPULAR.length : i;
    };
    currencies = listCurrencies()
      .filter((c) => c.isAvailable)
      .sort((a, b) => rank(a.ticker) - rank(b.ticker) || a.name.localeCompare(b.name) || a.network.localeCompare(b.network))
      .map((c) => {
        const l = amountLimits({ minAmount: new D(c.minAmount), maxAmount: new D(c.maxAmount) }, c.precision);
        return {
          ticker: c.ticker,
          symbol: c.symbol,
          name: c.name,
          network: c.network,
          hasExtraId: c.hasExtraId,
          extraIdName: c.extraIdName,
          popular: POPULAR.includes(c.ticker),
          minAmount: num(l.minAmount).toString(),
          maxAmount: num(l.maxAmount).toString(),
        };
      });
  }
  return currencies as HostedCurrency[];
}

/** Whether an operator suspended the reseller (lib/console/resellers): its pages take no new order. */
async function isSuspended(db: Db, resellerId: string): Promise<boolean> {
  const r = await db.reseller.findUnique({ where: { id: resellerId }, select: { suspendedAt: true } });
  return !!r?.suspendedAt;
}

/**
 * The channel of a request that would start an exchange (an estimate, an order): a suspended
 * reseller's is refused with 403 RESELLER_SUSPENDED, as its API keys are. What follows an order
 * already made (its status, its sandbox deposit, its refund address) never asks this: open
 * orders of a suspended reseller go on to their end.
 */
async function activeHostedChannel(db: Db, sel: HostedSelector): Promise<HostedChannel> {
  const ch = await resolveHostedChannel(db, sel);
  if (await isSuspended(db, ch.resellerId))
    throw new AppError("RESELLER_SUSPENDED", "This exchange is not available at the moment: no new exchange can be started here.");
  return ch;
}

/**
 * What a page needs to draw itself: how it names itself to its API, its title, theme and
 * defaults (a widget's), its reseller's brand (name, logo, support contact, terms: app/_hosted/
 * Brand.tsx), and whether the sandbox's deposit button is there. Never a key or secret. The
 * accent: a widget's own, else the brand's, else the app's.
 */
export async function hostedPage(db: Db, sel: HostedSelector) {
  const ch = await resolveHostedChannel(db, sel);
  const w = ch.widget;
  const [brand, suspended] = await Promise.all([getBrand(db, { resellerId: ch.resellerId }), isSuspended(db, ch.resellerId)]);
  return {
    /** The reseller is suspended (issue 52): the page says the service is unavailable, and shows no form. */
    suspended,
    r: sel.reseller ? ch.resellerId : null,
    w: w?.id ?? null,
    title: w?.name ?? brand.name ?? "Exchange",
    accent: w?.accent ?? brand.accent ?? "#4f46e5",
    brand,
    theme: w?.theme ?? ("light" as const),
    defaultFrom: w?.defaultFrom ?? "btc",
    defaultTo: w?.defaultTo ?? "eth",
    defaultAmount: w?.defaultAmount ?? null,
    sandbox: getSandboxEngine() !== null,
  };
}

/**
 * An estimate as the user will get it: the channel's markup included. Never a rateId: a
 * fixed rate is locked only by creating an order (counted against the IP's daily orders),
 * so the page hands out no reusable fixed quotes to harvest.
 */
export async function hostedEstimate(
  db: Db,
  opts: { sel: HostedSelector; from: unknown; to: unknown; amount?: string; toAmount?: string; rateType: RateType; clientIp: string },
) {
  const ch = await activeHostedChannel(db, opts.sel);
  if (opts.toAmount !== undefined && opts.rateType !== "fixed")
    throw new AppError("INVALID_REQUEST", "An amount to receive needs a fixed rate.", { field: "rateType" });
  const e = await getEstimate({
    from: opts.from,
    to: opts.to,
    amount: opts.amount,
    toAmount: opts.toAmount,
    rateType: "floating",
    markupBps: ch.markupBps,
    ctx: { scope: `reseller:${ch.resellerId}`, clientIp: opts.clientIp },
  });
  return {
    fromCurrency: e.from.ticker,
    toCurrency: e.to.ticker,
    // Decimal strings: the page shows them as they are.
    fromAmount: num(e.fromAmount).toString(),
    toAmount: num(e.toAmount).toString(),
    rate: num(e.rate).toString(),
    fee: bpsToPercent(e.feeBps),
    rateType: opts.rateType,
    validUntil: e.validUntil.toISOString(),
    minAmount: num(e.minAmount).toString(),
    maxAmount: num(e.maxAmount).toString(),
  };
}

/** An address (and extra id) checked against the registry as the user types it. */
export function checkAddress(opts: { currency: string; address: string; extraId?: string | null }) {
  const c = getCurrency(String(opts.currency).toLowerCase());
  if (!c) throw new AppError("UNKNOWN_CURRENCY", "Unknown currency.");
  const address = opts.address.trim();
  const valid = address !== "" && validateAddress(c, address);
  const extraId = opts.extraId?.trim() || null;
  return {
    valid,
    reason:
      valid || address === "" ? null : (addressRejectionReason(c, address) ?? `This is not a valid ${c.name} (${c.network}) address.`),
    extraIdValid: extraId === null ? null : validateExtraId(c, extraId),
    extraIdName: c.hasExtraId ? (c.extraIdName ?? "Extra ID") : null,
  };
}

export { hashOrderToken };

export interface HostedOrderInput {
  from: string;
  to: string;
  amount?: string;
  toAmount?: string;
  rateType: RateType;
  address: string;
  extraId?: string | null;
  refundAddress?: string | null;
  refundExtraId?: string | null;
}

/** Creates the order with the channel's markup; answers its status and the secret of its status link (shown once). */
export async function createHostedOrder(db: Db, opts: { sel: HostedSelector; input: HostedOrderInput; clientIp: string }) {
  const ch: HostedChannel = await activeHostedChannel(db, opts.sel);
  const token = base58.encode(crypto.randomBytes(24));
  const input: CreateOrderInput = {
    from: opts.input.from,
    to: opts.input.to,
    ...(opts.input.toAmount !== undefined ? { toAmount: opts.input.toAmount } : { amount: opts.input.amount }),
    rateType: opts.input.rateType,
    address: opts.input.address,
    extraId: opts.input.extraId,
    refundAddress: opts.input.refundAddress,
    refundExtraId: opts.input.refundExtraId,
  };
  const { order } = await createOrder(db, {
    input,
    caller: {
      apiKeyId: null,
      resellerId: ch.resellerId,
      markupBps: ch.markupBps,
      channel: ch.channel,
      accessTokenHash: hashOrderToken(token),
    },
    ctx: { scope: `reseller:${ch.resellerId}`, clientIp: opts.clientIp },
  });
  return { token, order: await hostedOrderView({ ...order, events: [{ status: "waiting", at: order.createdAt } as OrderEvent] }) };
}

/** The order for the holder of its status link's secret; anyone else gets the 404 of an unknown id (lib/orders/get-order.ts). */
export const orderForToken = (db: Db, orderId: string, token: string | null) => getOrderForToken(db, { orderId, token });

/**
 * The brand of an order's reseller, for its status page: only for the holder of the status
 * link's secret (anyone else gets the 404 of an unknown id, as for the order itself).
 */
export async function hostedOrderBrand(db: Db, opts: { orderId: string; token: string | null }): Promise<PublicBrand> {
  const order = await orderForToken(db, opts.orderId.toLowerCase(), opts.token);
  return getBrand(db, { resellerId: order.resellerId ?? "" });
}

/** Block explorers' transaction pages per network (links the user follows; nothing is loaded from them). */
const EXPLORERS: Record<string, string> = {
  bitcoin: "https://mempool.space/tx/",
  ethereum: "https://etherscan.io/tx/",
  litecoin: "https://litecoinspace.org/tx/",
  bitcoincash: "https://blockchair.com/bitcoin-cash/transaction/",
  dogecoin: "https://blockchair.com/dogecoin/transaction/",
  tron: "https://tronscan.org/#/transaction/",
  solana: "https://solscan.io/tx/",
  bsc: "https://bscscan.com/tx/",
  polygon: "https://polygonscan.com/tx/",
  arbitrum: "https://arbiscan.io/tx/",
  optimism: "https://optimistic.etherscan.io/tx/",
  base: "https://basescan.org/tx/",
  avaxc: "https://snowtrace.io/tx/",
  ripple: "https://xrpscan.com/tx/",
  stellar: "https://stellar.expert/explorer/public/tx/",
  ton: "https://tonviewer.com/transaction/",
  cardano: "https://cardanoscan.io/transaction/",
  monero: "https://xmrchain.net/tx/",
  dash: "https://blockchair.com/dash/transaction/",
  zcash: "https://blockchair.com/zcash/transaction/",
  polkadot: "https://polkadot.subscan.io/extrinsic/",
  cosmos: "https://www.mintscan.io/cosmos/tx/",
  near: "https://nearblocks.io/txns/",
  algorand: "https://allo.info/tx/",
  sui: "https://suiscan.xyz/mainnet/tx/",
  aptos: "https://explorer.aptoslabs.com/txn/",
};

export function explorerTxUrl(currency: Currency | undefined, hash: string | null): string | null {
  if (!currency || !hash || !/^[0-9A-Za-z_-]{8,200}$/.test(hash)) return null;
  const base = EXPLORERS[currency.network];
  return base ? base + hash : null;
}

/**
 * What the deposit screen scans: the address (and nothing else a wallet could misread), as a
 * PNG data URL: Tor Browser's "Safest" level turns SVG off, so an SVG code would not show there.
 */
const qrDataUrl = (text: string) => QRCode.toDataURL(text, { type: "image/png", errorCorrectionLevel: "M", margin: 2, scale: 4 });

/** The status page's view of an order: the v1 status body, names, explorer links and the deposit QR code. */
export async function hostedOrderView(order: Order & { events: Pick<OrderEvent, "status" | "at">[] }) {
  const from = getCurrency(order.fromCurrency);
  const to = getCurrency(order.toCurrency);
  const status = serializeOrderStatus(order, order.events);
  const describe = (c: Currency | undefined, ticker: string) => ({
    ticker,
    symbol: c?.symbol ?? ticker.toUpperCase(),
    name: c?.name ?? ticker,
    network: c?.network ?? "",
    extraIdName: c?.hasExtraId ? (c.extraIdName ?? "Extra ID") : null,
  });
  return {
    ...status,
    rateType: order.rateType,
    fixedUntil: order.fixedUntil?.toISOString() ?? null,
    from: describe(from, order.fromCurrency),
    to: describe(to, order.toCurrency),
    links: {
      payin: explorerTxUrl(from, order.payinHash),
      payout: explorerTxUrl(to, order.payoutHash),
      refund: explorerTxUrl(from, order.refundHash),
    },
    depositQr: order.payinAddress && order.status === "waiting" ? await qrDataUrl(order.payinAddress) : null,
    // What was sent to the payout address: the order's toAmount once it finished (a floating
    // order's is the amount the exchange actually made), null before.
    amountSent: order.status === "finished" ? num(order.toAmount).toString() : null,
  };
}

/** The order's view, and the order itself (for Poll-After). */
export async function getHostedOrder(db: Db, opts: { orderId: string; token: string | null }) {
  const order = await orderForToken(db, opts.orderId.toLowerCase(), opts.token);
  return { order, view: await hostedOrderView(order) };
}

/** Sandbox only: the deposit screen's "simulate my deposit" (the quoted amount). */
export async function hostedSandboxDeposit(db: Db, opts: { orderId: string; token: string | null }) {
  const order = await orderForToken(db, opts.orderId.toLowerCase(), opts.token);
  return hostedOrderView(await reportSandboxDeposit(db, { orderId: order.id, caller: { resellerId: order.resellerId ?? "" } }));
}

/** The status page's path: the secret in the query (`?t=`), so that a page without JavaScript can send it (docs/widgets.md). */
export const hostedStatusPath = (orderId: string, token: string, lang?: string | null) =>
  `/o/${orderId}?t=${token}${lang ? `&lang=${encodeURIComponent(lang)}` : ""}`;

/** Whether the deposit screen offers the sandbox's simulated deposit. */
export const hostedSandboxEnabled = () => getSandboxEngine() !== null;
