import "server-only";
import { resolveHostedChannel } from "@/lib/channels/channels";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { num } from "@/lib/money/json-number";
import { pollAfterSeconds } from "@/lib/orders/poll-hint";
import { getRange } from "@/lib/quotes/range";
import { limitKeylessCreation, limitRequest } from "@/lib/ratelimit/limiter";
import {
  checkAddress,
  createHostedOrder,
  getHostedOrder,
  type HostedOrderInput,
  type HostedSelector,
  hostedEstimate,
  hostedSandboxDeposit,
} from "./hosted";

// The hosted pages' own server side (app/_hosted/actions.ts, the status page): the very
// functions the hosted API calls (./hosted.ts), behind the very limits its routes apply
// (lib/http/route.ts, auth "page"): every call counts against the client IP's keyless budget,
// and an order against its daily orders (given back when it fails). No second copy of the logic.

/** An estimate for the page's form, counted like GET /api/hosted/estimate. */
export async function pageEstimate(db: Db, opts: Parameters<typeof hostedEstimate>[1]) {
  await limitRequest({ kind: "ip", ip: opts.clientIp });
  return hostedEstimate(db, opts);
}

/** An address check for the page's form, counted like GET /api/hosted/address. */
export async function pageCheckAddress(clientIp: string, opts: Parameters<typeof checkAddress>[0]) {
  await limitRequest({ kind: "ip", ip: clientIp });
  return checkAddress(opts);
}

/** An order made from the page's form, counted like POST /api/hosted/orders (a request, and one of the IP's daily orders). */
export async function pageCreateOrder(db: Db, opts: { sel: HostedSelector; input: HostedOrderInput; clientIp: string }) {
  const limits = await limitRequest({ kind: "ip", ip: opts.clientIp });
  const daily = await limitKeylessCreation(opts.clientIp, limits);
  try {
    return await createHostedOrder(db, opts);
  } catch (e) {
    await daily.refund();
    throw e;
  }
}

/**
 * A pair's limits on the amount sent, shown before an amount is typed (the channel's markup
 * applied, as the estimate would); null when the pair cannot be quoted now.
 */
export async function pageRange(db: Db, opts: { sel: HostedSelector; from: string; to: string; clientIp: string }) {
  try {
    const ch = await resolveHostedChannel(db, opts.sel);
    const r = await getRange({
      from: opts.from,
      to: opts.to,
      markupBps: ch.markupBps,
      ctx: { scope: `reseller:${ch.resellerId}`, clientIp: opts.clientIp },
    });
    return { minAmount: num(r.minAmount).toString(), maxAmount: num(r.maxAmount).toString() };
  } catch (e) {
    if (e instanceof AppError && e.code !== "INTERNAL_ERROR") return null;
    throw e;
  }
}

/** The longest and shortest a status page without JavaScript waits before it reloads itself. */
const REFRESH_MIN_SECONDS = 5;
const REFRESH_MAX_SECONDS = 30;

/**
 * The status page's order, for the holder of its link's secret (a wrong or missing one: the
 * ORDER_NOT_FOUND of an unknown id), counted like GET /api/hosted/orders/<id>; with when a page
 * without JavaScript should reload (Poll-After, within 5 to 30 s; null once final).
 */
export async function pageOrder(db: Db, opts: { orderId: string; token: string | null; clientIp: string }) {
  await limitRequest({ kind: "ip", ip: opts.clientIp });
  const { order, view } = await getHostedOrder(db, { orderId: opts.orderId, token: opts.token });
  const poll = pollAfterSeconds(order);
  return { view, refreshSeconds: poll === null ? null : Math.min(REFRESH_MAX_SECONDS, Math.max(REFRESH_MIN_SECONDS, poll)) };
}

/** The sandbox's simulated deposit from the status page, counted like POST /api/hosted/orders/<id>/deposit. */
export async function pageSandboxDeposit(db: Db, opts: { orderId: string; token: string | null; clientIp: string }) {
  await limitRequest({ kind: "ip", ip: opts.clientIp });
  return hostedSandboxDeposit(db, { orderId: opts.orderId, token: opts.token });
}
