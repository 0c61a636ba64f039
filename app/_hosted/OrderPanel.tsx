"use client";

import { useFormatter, useTranslations } from "next-intl";
import { useActionState, useId } from "react";
import type { BrandSupport } from "@/lib/resellers/brand-types";
import { depositAction } from "./actions";
import { ApiError, fmt, type HostedOrderView as OrderView } from "./api";
import { networkName } from "./messages";
import { useHostedOrder } from "./queries";
import { RequiredAction } from "./RequiredAction";
import { AccentButton, CopyText, classes, mmss, useCountdown, useMounted, useTheme } from "./theme";

// An order as its user sees it, server-rendered from the order (the status page, or a widget
// right after the order) and, with JavaScript, kept up to date by polling (useHostedOrder):
// the deposit screen while it waits (amount, address, extra id, a PNG QR code, the one
// deadline that matters as a date and, with JavaScript, a countdown), the timeline with dated
// steps, the addresses and amounts, explorer links, the refund when it failed, and the link
// to keep. The sandbox's deposit is a form (a server action): it works without JavaScript.

const STEPS = ["waiting", "confirming", "exchanging", "sending", "finished"] as const;
const REASONS = [
  "expired",
  "deposit_below_minimum",
  "deposit_above_maximum",
  "deposit_amount_mismatch",
  "deposit_late",
  "engine_error",
  "refunded",
  "provider_failed",
];

/** A date and time with its zone, the same on the server and in the browser: "29 Nov 2026, 14:05 UTC". */
function useDated() {
  const f = useFormatter();
  return (iso: string) =>
    f.dateTime(new Date(iso), {
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZone: "UTC",
      timeZoneName: "short",
    });
}

function Field({
  label,
  value,
  copy,
  mono = true,
  testId,
}: {
  label: string;
  value: string;
  copy?: string;
  mono?: boolean;
  testId: string;
}) {
  const c = classes(useTheme().dark);
  return (
    <div className={`rounded-lg p-3 ${c.subtle}`}>
      <div className={`text-xs font-medium uppercase tracking-wide ${c.muted}`}>{label}</div>
      <div className="mt-1 flex items-start justify-between gap-2">
        <span className={`min-w-0 break-all ${mono ? "font-mono text-sm" : "font-semibold"}`} data-testid={`field-${testId}`}>
          {value}
        </span>
        {copy ? <CopyText text={copy} label={label.toLowerCase()} /> : null}
      </div>
    </div>
  );
}

function Hash({ label, hash, href }: { label: string; hash: string; href: string | null }) {
  const c = classes(useTheme().dark);
  const t = useTranslations("status");
  return (
    <div className="text-sm">
      <span className={c.muted}>{label}: </span>
      {href ? (
        <a className={`break-all font-mono ${c.link}`} href={href} target="_blank" rel="noopener noreferrer">
          {hash}
          <span className="sr-only"> {t("opensExplorer")}</span>
        </a>
      ) : (
        <span className="break-all font-mono">{hash}</span>
      )}
    </div>
  );
}

/** The sandbox's deposit: a form posting to a server action, with or without JavaScript. */
function SandboxDeposit({ id, token, lang, widget }: { id: string; token: string; lang: string | null; widget: boolean }) {
  const t = useTranslations("status");
  const te = useTranslations("errors");
  const { dark } = useTheme();
  const c = classes(dark);
  const [state, action, pending] = useActionState(depositAction, { error: null });
  return (
    <form action={action} className={`mt-4 rounded-lg border border-dashed p-3 text-sm ${dark ? "border-zinc-600" : "border-zinc-300"}`}>
      <input type="hidden" name="id" value={id} />
      <input type="hidden" name="t" value={token} />
      {lang ? <input type="hidden" name="lang" value={lang} /> : null}
      {widget ? null : <input type="hidden" name="back" value="status" />}
      <p className={c.muted}>{t("sandboxNote")}</p>
      <AccentButton type="submit" className="mt-2" disabled={pending} data-testid="simulate-deposit">
        {t("simulateDeposit")}
      </AccentButton>
      {state.error ? (
        <p role="alert" className={`mt-2 ${c.error}`}>
          {te(state.error)}
        </p>
      ) : null}
    </form>
  );
}

/** The status link the user must keep: selectable text in a read-only input, and with JavaScript a copy button. */
function KeepLink({ path }: { path: string }) {
  const t = useTranslations("status");
  const c = classes(useTheme().dark);
  const id = useId();
  const mounted = useMounted();
  // The full link: the page's own origin once it runs; on the server the path, which the browser shows whole in its address bar.
  const full = mounted ? new URL(path, window.location.href).toString() : path;
  return (
    <section aria-labelledby={`${id}-h`} className={`rounded-xl border p-4 sm:p-5 ${c.card}`} data-testid="keep-link">
      <h3 id={`${id}-h`} className="font-semibold">
        {t("keepTitle")}
      </h3>
      <p className={`mt-1 text-sm ${c.muted}`}>{t("keepText")}</p>
      <label htmlFor={id} className="mt-2 block text-sm font-medium">
        {t("keepLabel")}
      </label>
      <div className="mt-1 flex items-center gap-2">
        <input
          id={id}
          readOnly
          value={full}
          className={`min-w-0 flex-1 rounded-lg border px-3 py-2 font-mono text-xs ${c.input}`}
          data-testid="status-link-text"
        />
        <CopyText text={full} label={t("keepLabel").toLowerCase()} />
      </div>
    </section>
  );
}

/** In a widget: the status page, opened in a new tab (the widget's own URL is the embedding site's). */
function WidgetStatusLink({ href }: { href: string }) {
  const t = useTranslations("exchange");
  const c = classes(useTheme().dark);
  return (
    <p className="text-sm">
      {t("orderCreated")}{" "}
      <a className={`break-all ${c.link}`} href={href} target="_blank" rel="noopener noreferrer" data-testid="status-link">
        {t("openStatus")} <span className="sr-only">{t("opensNewTab")}</span>
      </a>
    </p>
  );
}

export function OrderPanel({
  id,
  token,
  initial,
  sandbox,
  statusUrl,
  lang,
  widget = false,
  refreshSeconds = null,
  support = null,
}: {
  id: string;
  token: string;
  initial: OrderView | null;
  sandbox: boolean;
  /** The status page's path with its secret: the link the user keeps. */
  statusUrl: string;
  lang: string | null;
  /** In a widget: the status page opens in a new tab (the widget's own URL is the embedding site's). */
  widget?: boolean;
  /** Without JavaScript the page reloads itself every so many seconds (null: final). */
  refreshSeconds?: number | null;
  /** The reseller's support contact, shown where the order asks the user to act. */
  support?: BrandSupport | null;
}) {
  const { dark } = useTheme();
  const c = classes(dark);
  const t = useTranslations("status");
  const te = useTranslations("errors");
  const dated = useDated();
  const mounted = useMounted();
  const status = useHostedOrder(id, token, initial);
  const order = status.data ?? null;
  const notFound = status.error instanceof ApiError && status.error.status === 404;
  const waiting = order?.status === "waiting";
  // One deadline: a fixed-rate order's window (its rate holds only until then), else the expiry.
  const deadline = waiting ? (order.rateType === "fixed" && order.fixedUntil ? order.fixedUntil : order.expiresAt) : null;
  const left = useCountdown(mounted ? deadline : null);

  if (notFound)
    return (
      <div role="alert" className={`rounded-xl border p-5 ${c.card}`}>
        <h2 className="text-lg font-semibold">{t("notFoundTitle")}</h2>
        <p className={`mt-1 text-sm ${c.muted}`}>{t("notFoundText")}</p>
      </div>
    );
  if (!order) return <p className={c.muted}>{t("loading")}</p>;

  const failed = order.status === "failed";
  const finished = order.status === "finished";
  const reached = new Map((order.history ?? []).map((h) => [h.status, h.at]));
  const stepIndex = STEPS.indexOf(order.status as (typeof STEPS)[number]);
  const sides = {
    fromAmount: fmt(order.fromAmount),
    fromSymbol: order.from.symbol,
    fromNetwork: networkName(order.from.network),
    toAmount: fmt(order.toAmount),
    toSymbol: order.to.symbol,
    toNetwork: networkName(order.to.network),
  };
  const fixed = order.rateType === "fixed";
  const reason = order.failureReason ? t(`reason.${REASONS.includes(order.failureReason) ? order.failureReason : "other"}`) : null;

  return (
    <div className="space-y-4" data-testid="order-panel" data-status={order.status}>
      <div className={`rounded-xl border p-4 sm:p-5 ${c.card}`}>
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 className="text-lg font-semibold" aria-live="polite" data-testid="order-status">
            {t(`state.${order.status}`)}
          </h2>
          <span className={`font-mono text-xs ${c.muted}`}>{t("order", { id: order.id })}</span>
        </div>
        <p className={`mt-1 text-sm ${c.muted}`}>{fixed || finished ? t("summary", sides) : t("summaryAbout", sides)}</p>
        {!mounted ? (
          <p className={`mt-1 text-xs ${c.muted}`} data-testid="refresh-note">
            {refreshSeconds !== null ? t("updatesAuto", { seconds: refreshSeconds }) : t("finalNoUpdates")}
          </p>
        ) : null}
      </div>

      <RequiredAction order={order} token={token} lang={lang} support={support} />

      {waiting ? (
        <section aria-labelledby="deposit-h" className={`rounded-xl border p-4 sm:p-5 ${c.card}`}>
          <h3 id="deposit-h" className="font-semibold">
            {t("depositTitle")}
          </h3>
          <div className="mt-3 grid gap-4 sm:grid-cols-[1fr_auto]">
            <div className="min-w-0 space-y-2">
              <Field
                label={t("amount")}
                value={`${fmt(order.fromAmount)} ${order.from.symbol}`}
                copy={fmt(order.fromAmount)}
                mono={false}
                testId="amount"
              />
              <Field
                label={t("depositAddress", { network: networkName(order.from.network) })}
                value={order.payinAddress}
                copy={order.payinAddress}
                testId="deposit-address"
              />
              {order.payinExtraId ? (
                <Field
                  label={order.from.extraIdName ?? "Extra ID"}
                  value={order.payinExtraId}
                  copy={order.payinExtraId}
                  testId="deposit-extra-id"
                />
              ) : null}
            </div>
            {order.depositQr ? (
              // biome-ignore lint/performance/noImgElement: a PNG data URL made on the server; nothing for next/image to optimise
              <img
                src={order.depositQr}
                alt={t("qrAlt", { address: order.payinAddress })}
                width={176}
                height={176}
                className="mx-auto rounded-lg bg-white p-1 [image-rendering:pixelated]"
                data-testid="deposit-qr"
              />
            ) : null}
          </div>
          {order.payinExtraId ? (
            <p className={`mt-3 text-sm font-medium ${c.error}`}>{t("includeExtraId", { name: order.from.extraIdName ?? "Extra ID" })}</p>
          ) : null}
          {deadline ? (
            <p className={`mt-3 text-sm ${c.muted}`} data-testid="deadline">
              {fixed
                ? t("fixedUntil", { at: dated(deadline), amount: fmt(order.toAmount), symbol: order.to.symbol })
                : t("expiresAt", { at: dated(deadline) })}
              {left !== null ? (
                <>
                  {" "}
                  <span className="tabular font-semibold" data-testid="expiry-countdown">
                    ({mmss(left)})
                  </span>
                </>
              ) : null}
            </p>
          ) : null}
          {sandbox ? <SandboxDeposit id={id} token={token} lang={lang} widget={widget} /> : null}
        </section>
      ) : null}

      <section aria-labelledby="timeline-h" className={`rounded-xl border p-4 sm:p-5 ${c.card}`}>
        <h3 id="timeline-h" className="font-semibold">
          {t("progress")}
        </h3>
        <ol className="mt-3 space-y-2" data-testid="timeline">
          {STEPS.map((s, i) => {
            const at = reached.get(s);
            // A failed order keeps the steps it went through (done), then the failure.
            const done = failed ? at !== undefined : i < stepIndex || finished;
            const current = !failed && i === stepIndex && !finished;
            if (failed && !done) return null;
            return (
              <li
                key={s}
                className="flex flex-wrap items-center gap-x-3 text-sm"
                aria-current={current ? "step" : undefined}
                data-step={s}
                data-done={done || undefined}
              >
                <span
                  aria-hidden="true"
                  className={`inline-block size-3 rounded-full ${done ? "" : current ? "animate-pulse" : dark ? "bg-zinc-700" : "bg-zinc-300"}`}
                  style={done || current ? { background: "var(--accent)" } : undefined}
                />
                <span className={done || current ? "font-medium" : c.muted}>{t(`state.${s}`)}</span>
                {at ? <span className={`ml-auto tabular text-xs ${c.muted}`}>{dated(at)}</span> : null}
              </li>
            );
          })}
          {failed ? (
            <li className={`flex flex-wrap items-center gap-x-3 text-sm font-semibold ${c.error}`} data-step="failed">
              <span>{t("failedWith", { reason: reason ?? t("reason.other") })}</span>
              {reached.get("failed") ? <span className="ml-auto tabular text-xs">{dated(reached.get("failed")!)}</span> : null}
            </li>
          ) : null}
        </ol>
        <div className="mt-3 space-y-1">
          {order.payinHash ? <Hash label={t("depositHash")} hash={order.payinHash} href={order.links.payin} /> : null}
          {order.payoutHash ? <Hash label={t("payoutHash")} hash={order.payoutHash} href={order.links.payout} /> : null}
        </div>
        {failed && order.refund ? (
          <div className={`mt-3 rounded-lg p-3 text-sm ${c.subtle}`} data-testid="refund">
            <p className="font-medium">
              {order.refund.amount != null
                ? t("refundOf", {
                    amount: fmt(order.refund.amount),
                    symbol: order.from.symbol,
                    state: t(`refundState.${order.refund.state}`),
                  })
                : t("refund", { state: t(`refundState.${order.refund.state}`) })}
            </p>
            {order.refund.hash ? <Hash label={t("refundHash")} hash={order.refund.hash} href={order.links.refund} /> : null}
          </div>
        ) : null}
      </section>

      <section aria-labelledby="details-h" className={`rounded-xl border p-4 sm:p-5 ${c.card}`}>
        <h3 id="details-h" className="font-semibold">
          {t("details")}
        </h3>
        <dl className="mt-3 grid gap-x-3 gap-y-2 text-sm sm:grid-cols-[auto_minmax(0,1fr)]">
          <dt className={c.muted}>{t("payoutAddress", { symbol: order.to.symbol })}</dt>
          <dd className="break-all font-mono" data-testid="payout-address">
            {order.payoutAddress}
          </dd>
          {order.payoutExtraId ? (
            <>
              <dt className={c.muted}>{t("payoutExtraId", { name: order.to.extraIdName ?? "Extra ID" })}</dt>
              <dd className="break-all font-mono" data-testid="payout-extra-id">
                {order.payoutExtraId}
              </dd>
            </>
          ) : null}
          <dt className={c.muted}>{t("refundAddress")}</dt>
          <dd className="break-all font-mono" data-testid="refund-address">
            {order.refundAddress ?? <span className="font-sans">{t("noRefundAddress")}</span>}
          </dd>
          {order.amountReceived != null ? (
            <>
              <dt className={c.muted}>{t("received")}</dt>
              <dd className="tabular" data-testid="amount-received">
                {fmt(order.amountReceived)} {order.from.symbol}
              </dd>
            </>
          ) : null}
          {order.amountSent != null ? (
            <>
              <dt className={c.muted}>{t("sent")}</dt>
              <dd className="tabular font-semibold" data-testid="amount-sent">
                {fmt(order.amountSent)} {order.to.symbol}
              </dd>
            </>
          ) : (
            <>
              <dt className={c.muted}>{fixed ? t("toReceive") : t("toReceiveAbout")}</dt>
              <dd className="tabular">
                {fmt(order.toAmount)} {order.to.symbol}
              </dd>
            </>
          )}
        </dl>
      </section>

      {widget ? <WidgetStatusLink href={statusUrl} /> : null}
      <KeepLink path={statusUrl} />
      {status.isError && !notFound ? (
        <p role="alert" className={`text-sm ${c.error}`}>
          {te("readFailed")}
        </p>
      ) : null}
    </div>
  );
}
