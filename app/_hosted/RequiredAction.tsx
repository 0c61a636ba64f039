"use client";

import { useTranslations } from "next-intl";
import { useActionState, useId } from "react";
import type { BrandSupport } from "@/lib/resellers/brand-types";
import { type RefundAddressState, refundAddressAction } from "./actions";
import type { HostedOrderView } from "./api";
import { currencyLabel } from "./messages";
import { AccentButton, classes, useTheme } from "./theme";

// What the user must do on an order, if anything (the order's requiredAction, issue 51): give a
// refund address (a form that works without JavaScript), wait for a provider's review, or
// write to support, with the reseller's support contact when it set one. Nothing when the
// order asks nothing.

function SupportContact({ support, orderId }: { support: BrandSupport | null; orderId: string }) {
  const t = useTranslations("status.action");
  const c = classes(useTheme().dark);
  if (!support) return <p className={`mt-2 text-sm ${c.muted}`}>{t("noSupport", { id: orderId })}</p>;
  const external = support.kind !== "email";
  return (
    <p className="mt-2 text-sm">
      {t("support", { id: orderId })}{" "}
      <a
        href={support.href}
        className={`break-all font-medium ${c.link}`}
        data-testid="support-contact"
        {...(external ? { target: "_blank", rel: "noopener noreferrer" } : {})}
      >
        {support.value}
        {external ? <span className="sr-only"> {t("opensNewTab")}</span> : null}
      </a>
    </p>
  );
}

function RefundAddressForm({ order, token, lang }: { order: HostedOrderView; token: string; lang: string | null }) {
  const t = useTranslations("status.action");
  const te = useTranslations("errors");
  const c = classes(useTheme().dark);
  const ids = { address: useId(), extra: useId(), error: useId() };
  const initial: RefundAddressState = { error: null, field: null, refundAddress: "", refundExtraId: "" };
  const [state, action, pending] = useActionState(refundAddressAction, initial);
  const currency = currencyLabel(order.from, order.from.symbol);
  const extraName = order.from.extraIdName;
  const message = state.error ? te(state.error, { currency, name: extraName ?? "Extra ID" }) : null;
  const errorOn = (field: RefundAddressState["field"]) => (message && state.field === field ? message : null);
  return (
    <form action={action} className="mt-3 space-y-3" data-testid="refund-address-form">
      <input type="hidden" name="id" value={order.id} />
      <input type="hidden" name="t" value={token} />
      {lang ? <input type="hidden" name="lang" value={lang} /> : null}
      <div>
        <label htmlFor={ids.address} className="mb-1 block text-sm font-medium">
          {t("refundAddressLabel", { currency })}
        </label>
        <input
          id={ids.address}
          name="refundAddress"
          defaultValue={state.refundAddress}
          // A new key per answer: a refused address stays as typed, a new state resets nothing else.
          key={`a:${state.refundAddress}:${state.error ?? ""}`}
          autoComplete="off"
          spellCheck={false}
          required
          aria-invalid={errorOn("refundAddress") ? true : undefined}
          aria-describedby={errorOn("refundAddress") ? ids.error : undefined}
          className={`w-full rounded-lg border px-3 py-2 font-mono text-sm ${c.input}`}
        />
        {errorOn("refundAddress") ? (
          <p id={ids.error} className={`mt-1 text-sm ${c.error}`} data-testid="refund-address-error">
            {errorOn("refundAddress")}
          </p>
        ) : null}
      </div>
      {extraName ? (
        <div>
          <label htmlFor={ids.extra} className="mb-1 block text-sm font-medium">
            {t("refundExtraIdLabel", { name: extraName })}
          </label>
          <input
            id={ids.extra}
            name="refundExtraId"
            defaultValue={state.refundExtraId}
            key={`e:${state.refundExtraId}:${state.error ?? ""}`}
            autoComplete="off"
            aria-invalid={errorOn("refundExtraId") ? true : undefined}
            className={`w-full rounded-lg border px-3 py-2 font-mono text-sm ${c.input}`}
          />
          {errorOn("refundExtraId") ? (
            <p className={`mt-1 text-sm ${c.error}`} data-testid="refund-address-error">
              {errorOn("refundExtraId")}
            </p>
          ) : null}
        </div>
      ) : null}
      {message && state.field === null ? (
        <p role="alert" className={`text-sm ${c.error}`} data-testid="refund-address-error">
          {message}
        </p>
      ) : null}
      <AccentButton type="submit" disabled={pending} data-testid="refund-address-submit">
        {t("refundAddressSubmit")}
      </AccentButton>
    </form>
  );
}

export function RequiredAction({
  order,
  token,
  lang,
  support,
}: {
  order: HostedOrderView;
  token: string;
  lang: string | null;
  support: BrandSupport | null;
}) {
  const t = useTranslations("status.action");
  const c = classes(useTheme().dark);
  const id = useId();
  const action = order.requiredAction;
  if (!action) return null;
  return (
    <section
      aria-labelledby={`${id}-h`}
      className={`rounded-xl border-2 p-4 sm:p-5 ${c.card}`}
      style={{ borderColor: "var(--accent)" }}
      data-testid="required-action"
      data-action={action}
    >
      <h3 id={`${id}-h`} className="font-semibold">
        {t(`${action}.title`)}
      </h3>
      <p className="mt-1 text-sm">{t(`${action}.text`, { symbol: order.from.symbol })}</p>
      {action === "provide_refund_address" ? <RefundAddressForm order={order} token={token} lang={lang} /> : null}
      <SupportContact support={support} orderId={order.id} />
    </section>
  );
}
