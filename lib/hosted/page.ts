import "server-only";
import { resolveHostedChannel } from "@/lib/channels/channels";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { num, stringifyJson } from "@/lib/money/json-number";
import { pollAfterSeconds } from "@/lib/orders/poll-hint";
import { setRefundAddress } from "@/lib/orders/set-refund-address";
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
  orderForToken,
} from "./hosted";

// The hosted pages' own server side (app/_hosted/actions.ts, the status page): the very
// functions the hosted API calls (./hosted.ts), behind the very limits its routes apply
// (lib/http/route.ts, auth "page"): every call counts against the client IP's keyless budget,
// and an order against its daily orders (given back when it fails). No second copy of the logic.

/**
 * A view as the hosted API sends it, as plain JSON values (its exact numbers written as the API
 * writes them, then read as JSON): what a server component may hand to a client component.
 */
const asJson = <T>(v: T): T => JSON.parse(stringifyJson(v)) as T;

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
    const made = await createHostedOrder(db, opts);
    return { token: made.token, order: asJson(made.order) };
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
  return { view: asJson(view), refreshSeconds: poll === null ? null : Math.min(REFRESH_MAX_SECONDS, Math.max(REFRESH_MIN_SECONDS, poll)) };
}

/** The sandbox's simulated deposit from the status page, counted like POST /api/hosted/orders/<id>/deposit. */
export async function pageSandboxDeposit(db: Db, opts: { orderId: string; token: string | null; clientIp: string }) {
  await limitRequest({ kind: "ip", ip: opts.clientIp });
  return asJson(await hostedSandboxDeposit(db, { orderId: opts.orderId, token: opts.token }));
}

/**
 * A refund address given on the status page (issue 51: the way out of a hold), counted like
 * POST /api/hosted/orders/<id>/refund-address: the same function behind the same budget.
 */
export async function pageSetRefundAddress(
  db: Db,
  opts: { orderId: string; token: string | null; refundAddress: string; refundExtraId?: string; clientIp: string },
) {
  await limitRequest({ kind: "ip", ip: opts.clientIp });
  await setRefundAddress(db, {
    orderId: opts.orderId,
    auth: { token: opts.token },
    refundAddress: opts.refundAddress,
    refundExtraId: opts.refundExtraId,
    clientIp: opts.clientIp,
  });
}

/**
 * Whether a GET of an end user's page finds what it names (server.ts asks before it hands the
 * request to Next): the reseller's page (and its ?channel= widget), the widget, or the order
 * for its link's secret (?t=). False answers the hosted 404 (lib/http/hosted-404.ts): Next
 * renders a notFound() thrown by a dynamic page only with JavaScript (an empty error shell
 * that the client fills in), so a page without JavaScript would show nothing. Anything but a
 * clear "not found" (a database error...) is left to the page itself.
 */
export async function hostedPageFound(db: Db, url: string): Promise<boolean> {
  const u = new URL(url, "http://x");
  const [, kind, id] = u.pathname.split("/");
  const notFound = (e: unknown) => {
    const code = e instanceof AppError ? e.code : null;
    if (code === "NOT_FOUND" || code === "ORDER_NOT_FOUND") return false;
    return true;
  };
  try {
    if (kind === "x") await resolveHostedChannel(db, { reseller: id, widget: u.searchParams.get("channel") });
    else if (kind === "w") await resolveHostedChannel(db, { widget: id });
    else if (kind === "o") {
      if (!/^[0-9a-f]{24}$/.test(id ?? "")) return false;
      await orderForToken(db, id, u.searchParams.get("t"));
    }
    return true;
  } catch (e) {
    return notFound(e);
  }
}
