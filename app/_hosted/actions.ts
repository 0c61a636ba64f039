"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import {
  getDb,
  hostedCurrencies,
  hostedStatusPath,
  pageCreateOrder,
  pageEstimate,
  pageRange,
  pageSandboxDeposit,
  pageSetRefundAddress,
} from "@/app/_server/lib";
import type { HostedOrderView } from "./api";
import { AMOUNT_RE, type FieldErrors, pageError } from "./messages";
import { type ExchangeState, type ExchangeValues, estimateKey } from "./state";

// The hosted page's and the widget's server actions (React 19 form actions, useActionState):
// with JavaScript the form calls them in place; without it the browser posts the form to the
// page and the server renders the answer (progressive enhancement). No address ever goes into
// a URL. They call the very lib functions the hosted API calls (lib/hosted/page.ts: the same
// validation, the same per-IP limits), nothing of their own.

const text = (form: FormData, name: string, max = 200) => {
  const v = form.get(name);
  return typeof v === "string" ? v.trim().slice(0, max) : "";
};
const PUBLIC_ID = /^[1-9A-HJ-NP-Za-km-z]{1,64}$/;
const LANG = /^[a-z]{2}$/;

async function clientIp(): Promise<string> {
  // server.ts sets it from the socket (or X-Forwarded-For behind TRUST_PROXY) and drops a client's own.
  return (await headers()).get("x-client-ip") ?? "unknown";
}

function readValues(form: FormData): ExchangeValues {
  const mode = text(form, "mode") === "receive" ? "receive" : "send";
  return {
    from: text(form, "from", 20).toLowerCase(),
    to: text(form, "to", 20).toLowerCase(),
    mode,
    amount: text(form, "amount", 64).replace(",", "."),
    // An amount to receive always takes a fixed rate (the API refuses it otherwise).
    rateType: mode === "receive" || text(form, "rateType") === "fixed" ? "fixed" : "floating",
    address: text(form, "address"),
    extraId: text(form, "extraId", 100),
    refundAddress: text(form, "refundAddress"),
  };
}

const codeOf = (e: unknown) => (e && typeof e === "object" && "code" in e ? String((e as { code: unknown }).code) : "");
const detailsOf = (e: unknown) =>
  e && typeof e === "object" && "details" in e ? ((e as { details?: Record<string, unknown> }).details ?? {}) : {};

/**
 * The exchange form: intent "estimate" (the default, and what Enter does) estimates the values
 * sent; "swap" swaps the pair first; "exchange" creates the order, but only for values whose
 * estimate the form showed (else it estimates them, so a user without JavaScript always sees
 * the rate, the amount received and the limits first). The hosted page then goes to the
 * order's status page; a widget shows the order in place.
 */
export async function exchangeAction(_prev: ExchangeState, form: FormData): Promise<ExchangeState> {
  const r = text(form, "r", 64);
  const w = text(form, "w", 64);
  const sel = { reseller: PUBLIC_ID.test(r) ? r : null, widget: PUBLIC_ID.test(w) ? w : null };
  const lang = LANG.test(text(form, "lang", 5)) ? text(form, "lang", 5) : null;
  const widget = text(form, "widget") === "1";
  let intent = text(form, "intent", 20);
  const values = readValues(form);
  if (intent === "swap") [values.from, values.to] = [values.to, values.from];
  const ip = await clientIp();
  const db = getDb();
  const list = hostedCurrencies();
  const from = list.find((c) => c.ticker === values.from);
  const to = list.find((c) => c.ticker === values.to);
  const pair = { from: from ?? undefined, to: to ?? undefined, fromTicker: values.from, toTicker: values.to };
  const errors: FieldErrors = {};
  const fail = (e: unknown) => {
    const code = codeOf(e);
    if (!code || code === "INTERNAL_ERROR") throw e;
    const { field, message } = pageError(code, detailsOf(e), pair);
    errors[field] ??= message;
  };
  if (!from) errors.from = { key: "unknownCurrency" };
  if (!to) errors.to = { key: "unknownCurrency" };
  if (from && to && from.ticker === to.ticker) errors.to = { key: "sameCurrency" };
  const pairOk = !errors.from && !errors.to;
  const range = pairOk ? await pageRange(db, { sel, from: values.from, to: values.to, clientIp: ip }) : null;

  let estimate: ExchangeState["estimate"] = null;
  if (!values.amount) errors.amount = { key: "enterAmount" };
  else if (!AMOUNT_RE.test(values.amount) || Number(values.amount) === 0) errors.amount = { key: "invalidAmount" };
  else if (pairOk) {
    try {
      estimate = await pageEstimate(db, {
        sel,
        from: values.from,
        to: values.to,
        ...(values.mode === "send" ? { amount: values.amount } : { toAmount: values.amount }),
        rateType: values.rateType,
        clientIp: ip,
      });
    } catch (e) {
      fail(e);
    }
  }
  let notice: ExchangeState["notice"] = null;
  if (intent === "exchange" && text(form, "shown", 200) !== estimateKey(values)) {
    // The user has not seen this estimate yet (the pair or amount changed since): show it first.
    intent = "estimate";
    if (estimate) notice = { key: "estimateChanged" };
  }
  if (intent === "exchange" && !values.address) errors.address = { key: "addressRequired", values: { currency: to?.name ?? "" } };
  if (intent !== "exchange" || Object.keys(errors).length > 0) return { values, errors, estimate, range, notice, created: null };

  let created: Awaited<ReturnType<typeof pageCreateOrder>> | null = null;
  try {
    created = await pageCreateOrder(db, {
      sel,
      input: {
        from: values.from,
        to: values.to,
        ...(values.mode === "send" ? { amount: values.amount } : { toAmount: values.amount }),
        rateType: values.rateType,
        address: values.address,
        extraId: values.extraId || null,
        refundAddress: values.refundAddress || null,
      },
      clientIp: ip,
    });
  } catch (e) {
    fail(e);
  }
  if (!created) return { values, errors, estimate, range, notice, created: null };
  const statusPath = hostedStatusPath(created.order.id, created.token, lang);
  // The hosted page: the browser goes to the status page, whose URL is the link the user keeps.
  if (!widget) redirect(statusPath);
  return {
    values,
    errors,
    estimate,
    range,
    notice,
    created: {
      id: created.order.id,
      token: created.token,
      statusPath,
      // The same object the hosted API answers and documents as HostedOrderView (its zod schema types the page).
      order: created.order as unknown as HostedOrderView,
    },
  };
}

export interface DepositState {
  error: string | null;
}

/** The sandbox's "Simulate the deposit" (a form, so it works without JavaScript); then back to the status page. */
export async function depositAction(_prev: DepositState, form: FormData): Promise<DepositState> {
  const id = text(form, "id", 40);
  const token = text(form, "t", 100);
  const lang = LANG.test(text(form, "lang", 5)) ? text(form, "lang", 5) : null;
  try {
    await pageSandboxDeposit(getDb(), { orderId: id, token, clientIp: await clientIp() });
  } catch (e) {
    if (!codeOf(e) || codeOf(e) === "INTERNAL_ERROR") throw e;
    return { error: codeOf(e) === "RATE_LIMITED" ? "rateLimited" : "depositFailed" };
  }
  if (text(form, "back") === "status") redirect(hostedStatusPath(id, token, lang));
  return { error: null };
}

export interface RefundAddressState {
  /** A message of the "errors" namespace (the component gives its values), or null. */
  error: string | null;
  /** The field it belongs beside. */
  field: "refundAddress" | "refundExtraId" | null;
  /** What was typed, kept in the form when it is refused. */
  refundAddress: string;
  refundExtraId: string;
}

const REFUND_ERRORS: Record<string, { error: string; field: RefundAddressState["field"] }> = {
  INVALID_REFUND_ADDRESS: { error: "invalidRefundAddress", field: "refundAddress" },
  INVALID_REFUND_EXTRA_ID: { error: "invalidRefundExtraId", field: "refundExtraId" },
  INVALID_REQUEST: { error: "invalidRefundAddress", field: "refundAddress" },
  REFUND_ADDRESS_LOCKED: { error: "refundAddressLocked", field: null },
  REFUND_ADDRESS_UNSUPPORTED: { error: "refundAddressUnsupported", field: null },
  RATE_LIMITED: { error: "rateLimited", field: null },
};

/**
 * The status page's "give a refund address" (issue 51: the way out of a hold), a form that works
 * without JavaScript: lib's setRefundAddress with the status link's secret, as
 * POST /api/hosted/orders/<id>/refund-address does. Saved: back to the status page (a reload
 * never posts it again); refused: the reason beside the field, the input kept.
 */
export async function refundAddressAction(_prev: RefundAddressState, form: FormData): Promise<RefundAddressState> {
  const id = text(form, "id", 40);
  const token = text(form, "t", 100);
  const lang = LANG.test(text(form, "lang", 5)) ? text(form, "lang", 5) : null;
  const refundAddress = text(form, "refundAddress", 256);
  const refundExtraId = text(form, "refundExtraId", 100);
  const kept = { refundAddress, refundExtraId };
  if (!refundAddress) return { error: "refundAddressRequired", field: "refundAddress", ...kept };
  try {
    await pageSetRefundAddress(getDb(), {
      orderId: id,
      token,
      refundAddress,
      ...(refundExtraId ? { refundExtraId } : {}),
      clientIp: await clientIp(),
    });
  } catch (e) {
    const known = REFUND_ERRORS[codeOf(e)];
    if (known) return { ...known, ...kept };
    if (!codeOf(e) || codeOf(e) === "INTERNAL_ERROR") throw e;
    return { error: "refundAddressFailed", field: null, ...kept };
  }
  redirect(hostedStatusPath(id, token, lang));
}
