"use client";

import { useTranslations } from "next-intl";
import { useActionState, useEffect, useId, useState } from "react";
import { AddressField } from "./AddressField";
import { exchangeAction } from "./actions";
import { ApiError, type HostedConfig } from "./api";
import { currencyLabel, type FieldErrors, type Named, networkName, type PageMessage, pageError } from "./messages";
import { OrderPanel } from "./OrderPanel";
import { useAddressCheck, useEstimate } from "./queries";
import { type ExchangeState, estimateKey, type FormCurrency } from "./state";
import { AccentButton, classes, mmss, useCountdown, useMounted, useTheme } from "./theme";

// The exchange form of the hosted page (/x/<reseller>) and the widget (/w/<widget>): one
// React 19 form bound to a server action (./actions.ts) with useActionState. Without
// JavaScript the browser posts it to the page and the server renders the action's answer:
// the estimate (rate, amount received, the pair's limits) on "Update estimate", the order on
// "Exchange", each refusal beside its field with the input kept. With JavaScript the same form
// also estimates and checks addresses as they are typed (./queries.ts) and is sent in place.

const toNamed = (c: FormCurrency | undefined): (Named & { ticker: string }) | undefined =>
  c ? { ticker: c[0], symbol: c[1], name: c[2], network: c[3], extraIdName: c[4] || null } : undefined;

function CurrencySelect({
  label,
  name,
  currencies,
  value,
  onChange,
  error,
}: {
  label: string;
  name: "from" | "to";
  currencies: FormCurrency[];
  value: string;
  onChange: (t: string) => void;
  error: string | null;
}) {
  const t = useTranslations("exchange");
  const c = classes(useTheme().dark);
  const id = useId();
  const msg = useId();
  const option = (x: FormCurrency) => {
    const network = currencyNetwork(x);
    return (
      <option key={x[0]} value={x[0]}>
        {network ? t("currencyOption", { symbol: x[1], name: x[2], network }) : t("currencyOptionNative", { symbol: x[1], name: x[2] })}
      </option>
    );
  };
  return (
    <div className="min-w-0">
      <label htmlFor={id} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      {/* A native select: it works without JavaScript, and its list shows each name in full at any width. */}
      <select
        id={id}
        name={name}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? msg : undefined}
        className={`min-h-11 w-full rounded-lg border px-2 py-2 ${c.input}`}
        data-testid={`pick-${name}`}
      >
        <optgroup label={t("popular")}>{currencies.filter((x) => x[5]).map(option)}</optgroup>
        <optgroup label={t("allCurrencies")}>{currencies.filter((x) => !x[5]).map(option)}</optgroup>
      </select>
      {error ? (
        <p id={msg} className={`mt-1 text-sm ${c.error}`} data-testid={`${name}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The network as the option shows it (the label helper's wording); "" for a coin on its own network. */
const currencyNetwork = (x: FormCurrency) => {
  const label = currencyLabel({ symbol: x[1], name: x[2], network: x[3] }, x[0]);
  const comma = label.lastIndexOf(", ");
  return comma === -1 ? "" : label.slice(comma + 2, -1);
};

function Flow({
  cfg,
  currencies,
  widget,
  lang,
  initial,
}: {
  cfg: HostedConfig;
  currencies: FormCurrency[];
  widget: boolean;
  lang: string | null;
  initial: ExchangeState;
}) {
  const { dark } = useTheme();
  const c = classes(dark);
  const t = useTranslations("exchange");
  const te = useTranslations("errors");
  const mounted = useMounted();
  const [state, formAction, pending] = useActionState(exchangeAction, initial);
  const sent = state.values;
  const [from, setFrom] = useState(sent.from);
  const [to, setTo] = useState(sent.to);
  const [mode, setMode] = useState(sent.mode);
  const [amount, setAmount] = useState(sent.amount);
  const [rateType, setRateType] = useState(sent.rateType);
  const [address, setAddress] = useState(sent.address);
  const [extraId, setExtraId] = useState(sent.extraId);
  const [refundAddress, setRefundAddress] = useState(sent.refundAddress);
  // A swap done by the server (the no-JavaScript "⇄" button, or in place) shows its values.
  useEffect(() => {
    setFrom(state.values.from);
    setTo(state.values.to);
  }, [state.values.from, state.values.to]);
  const ids = { amount: useId(), amountMsg: useId(), extra: useId() };
  const fromC = toNamed(currencies.find((x) => x[0] === from));
  const toC = toNamed(currencies.find((x) => x[0] === to));
  const fixed = rateType === "fixed" || mode === "receive";
  const values = { from, to, mode, amount, rateType: fixed ? ("fixed" as const) : ("floating" as const) };
  const key = estimateKey(values);

  // With JavaScript: the estimate and the checks as the user types.
  const live = useEstimate(cfg, { from, to, amount, mode, fixed });
  const liveKey = estimateKey({ ...live.settled, rateType: live.settled.fixed ? "fixed" : "floating" });
  const serverFresh = estimateKey(sent) === key;
  const estimate = mounted && live.estimate && liveKey === key ? live.estimate : serverFresh ? state.estimate : null;
  const quoteLeft = useCountdown(estimate && fixed ? estimate.validUntil : null);
  useEffect(() => {
    if (quoteLeft === 0) void live.refresh();
  }, [quoteLeft, live.refresh]);
  const check = useAddressCheck(to, address, extraId);
  const refundCheck = useAddressCheck(from, refundAddress);

  if (state.created)
    return (
      <OrderPanel
        id={state.created.id}
        token={state.created.token}
        initial={state.created.order}
        sandbox={cfg.sandbox}
        statusUrl={state.created.statusPath}
        lang={lang}
        widget
        support={cfg.brand.support}
      />
    );

  const pair = { from: fromC, to: toC, fromTicker: from, toTicker: to };
  // The server's refusal stands while its field holds the value it refused.
  const serverError = (field: keyof FieldErrors, same: boolean): PageMessage | null => (same ? (state.errors[field] ?? null) : null);
  const liveAmountError: PageMessage | null = !mounted
    ? null
    : live.error === "amount"
      ? { key: "invalidAmount" }
      : live.error instanceof ApiError && liveKey === key
        ? pageError(live.error.code, live.error.details, pair).message
        : null;
  const amountError = liveAmountError ?? serverError("amount", serverFresh);
  const addressError: PageMessage | null =
    mounted && check && !check.valid
      ? { key: "invalidAddress", values: { currency: currencyLabel(toC, to) } }
      : serverError("address", sent.address === address.trim() && sent.to === to);
  const extraError: PageMessage | null =
    mounted && check?.extraIdValid === false
      ? { key: "invalidExtraId", values: { name: toC?.extraIdName ?? "Extra ID", currency: currencyLabel(toC, to) } }
      : serverError("extraId", sent.extraId === extraId.trim());
  const refundError: PageMessage | null =
    mounted && refundCheck && !refundCheck.valid
      ? { key: "invalidRefundAddress", values: { currency: currencyLabel(fromC, from) } }
      : serverError("refundAddress", sent.refundAddress === refundAddress.trim());
  const msg = (m: PageMessage | null | undefined) => (m ? te(m.key, m.values) : null);
  const limits = estimate ?? (sent.from === from && sent.to === to ? state.range : null);
  const fromSymbol = fromC?.symbol ?? from.toUpperCase();
  const toSymbol = toC?.symbol ?? to.toUpperCase();

  return (
    <form action={formAction} className="space-y-4" noValidate data-testid="exchange-form">
      {cfg.r ? <input type="hidden" name="r" value={cfg.r} /> : null}
      {cfg.w ? <input type="hidden" name="w" value={cfg.w} /> : null}
      {lang ? <input type="hidden" name="lang" value={lang} /> : null}
      {widget ? <input type="hidden" name="widget" value="1" /> : null}
      {/* The inputs whose estimate the page shows: "Exchange" makes an order only for those. */}
      <input type="hidden" name="shown" value={estimate ? key : ""} />
      <div className={`space-y-3 rounded-xl border p-4 sm:p-5 ${c.card}`}>
        <div className="grid gap-2 sm:grid-cols-[minmax(0,1fr)_auto_minmax(0,1fr)] sm:items-end">
          <CurrencySelect
            label={t("currencyToSend")}
            name="from"
            currencies={currencies}
            value={from}
            onChange={(x) => {
              if (x === to) setTo(from);
              setFrom(x);
            }}
            error={msg(serverError("from", sent.from === from))}
          />
          <button
            type="submit"
            name="intent"
            value="swap"
            className={`mx-auto size-11 rounded-full text-lg sm:mb-0 ${c.secondary}`}
            onClick={(e) => {
              // With JavaScript the swap is done here; without, the server swaps and re-estimates.
              e.preventDefault();
              setFrom(to);
              setTo(from);
            }}
            aria-label={t("swap")}
            title={t("swap")}
          >
            <span aria-hidden="true">⇅</span>
          </button>
          <CurrencySelect
            label={t("currencyToReceive")}
            name="to"
            currencies={currencies}
            value={to}
            onChange={(x) => {
              if (x === from) setFrom(to);
              setTo(x);
            }}
            error={msg(serverError("to", sent.to === to))}
          />
        </div>

        <fieldset className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
          <legend className="sr-only">{t("amountGivenAs")}</legend>
          <label className="inline-flex min-h-8 items-center gap-2">
            <input type="radio" name="mode" value="send" checked={mode === "send"} onChange={() => setMode("send")} /> {t("modeSend")}
          </label>
          <label className="inline-flex min-h-8 items-center gap-2">
            <input type="radio" name="mode" value="receive" checked={mode === "receive"} onChange={() => setMode("receive")} />{" "}
            {t("modeReceive")}
          </label>
        </fieldset>
        <div>
          <label htmlFor={ids.amount} className="mb-1 block text-sm font-medium">
            {mode === "send" ? t("amountToSend", { symbol: fromSymbol }) : t("amountToReceive", { symbol: toSymbol })}
          </label>
          <input
            id={ids.amount}
            name="amount"
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            onChange={(e) => setAmount(e.target.value.replace(",", "."))}
            aria-invalid={amountError ? true : undefined}
            aria-describedby={ids.amountMsg}
            className={`w-full rounded-lg border px-3 py-2 text-lg tabular ${c.input}`}
            placeholder={t("amountPlaceholder")}
            data-testid="amount"
          />
          <p id={ids.amountMsg} className={`mt-1 text-sm ${amountError ? c.error : c.muted}`} data-testid="amount-message">
            {amountError
              ? msg(amountError)
              : limits
                ? t("limitsLine", { min: limits.minAmount, max: limits.maxAmount, symbol: fromSymbol })
                : null}
          </p>
        </div>

        <fieldset className="text-sm">
          <legend className="mb-1 font-medium">{t("rate")}</legend>
          <div className="flex flex-wrap gap-x-4 gap-y-1">
            <label className="inline-flex min-h-8 items-center gap-2">
              <input
                type="radio"
                name="rateType"
                value="floating"
                checked={!fixed}
                disabled={mounted && mode === "receive"}
                onChange={() => setRateType("floating")}
              />{" "}
              {t("rateFloating")}
            </label>
            <label className="inline-flex min-h-8 items-center gap-2">
              <input type="radio" name="rateType" value="fixed" checked={fixed} onChange={() => setRateType("fixed")} /> {t("rateFixed")}
            </label>
          </div>
          {mode === "receive" ? <p className={`mt-1 ${c.muted}`}>{t("receiveNeedsFixed")}</p> : null}
        </fieldset>

        <div className={`rounded-lg p-3 ${c.subtle}`} aria-live="polite" data-testid="estimate">
          {estimate ? (
            <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
              <dt className={c.muted}>{t("estimateSend")}</dt>
              <dd className="text-right font-semibold tabular" data-testid="estimate-from">
                {estimate.fromAmount} {fromSymbol}
              </dd>
              <dt className={c.muted}>{fixed ? t("estimateGet") : t("estimateGetAbout")}</dt>
              <dd className="text-right text-lg font-semibold tabular" data-testid="estimate-to">
                {estimate.toAmount} {toSymbol}
              </dd>
              <dt className={c.muted}>{t("rateLine")}</dt>
              <dd className="text-right tabular" data-testid="estimate-rate">
                {t("rateValue", { from: fromSymbol, rate: estimate.rate, to: toSymbol })}
              </dd>
              <dt className={c.muted}>{t("fee")}</dt>
              <dd className="text-right tabular">{t("feeIncluded", { fee: estimate.fee })}</dd>
              <dt className={c.muted}>{t("limits")}</dt>
              <dd className="text-right tabular" data-testid="estimate-limits">
                {t("limitsRange", { min: estimate.minAmount, max: estimate.maxAmount, symbol: fromSymbol })}
              </dd>
              {mounted && fixed && quoteLeft !== null ? (
                <>
                  <dt className={c.muted}>{t("quoteRefreshes")}</dt>
                  <dd className="text-right tabular" data-testid="quote-countdown">
                    {mmss(quoteLeft)}
                  </dd>
                </>
              ) : null}
            </dl>
          ) : (
            <p className={`text-sm ${c.muted}`}>{mounted ? t("enterAmount") : t("noJsHint")}</p>
          )}
          {fixed && estimate ? <p className={`mt-2 text-xs ${c.muted}`}>{t("fixedNote")}</p> : null}
          {state.notice ? (
            <p className="mt-2 text-sm font-medium" data-testid="form-notice">
              {t(state.notice.key, state.notice.values)}
            </p>
          ) : null}
        </div>
        {/* First in the form, so that Enter in a field asks for the estimate, never the order. */}
        <button
          type="submit"
          name="intent"
          value="estimate"
          className={`min-h-11 w-full rounded-lg px-4 py-2 font-medium ${c.secondary}`}
          data-testid="update-estimate"
        >
          {t("updateEstimate")}
        </button>
      </div>

      <div className={`space-y-3 rounded-xl border p-4 sm:p-5 ${c.card}`}>
        <AddressField
          label={t("address", { symbol: toSymbol, network: networkName(toC?.network ?? "") })}
          name="address"
          value={address}
          onChange={setAddress}
          error={addressError}
          valid={mounted && check?.valid === true}
          validText={t("addressValid")}
          hint={t("addressHint")}
          testId="address"
        />
        {toC?.extraIdName ? (
          <div>
            <label htmlFor={ids.extra} className="mb-1 block text-sm font-medium">
              {t("extraId", { name: toC.extraIdName })}
            </label>
            <input
              id={ids.extra}
              name="extraId"
              value={extraId}
              onChange={(e) => setExtraId(e.target.value)}
              autoComplete="off"
              aria-invalid={extraError ? true : undefined}
              className={`w-full rounded-lg border px-3 py-2 font-mono text-sm ${c.input}`}
              data-testid="extra-id"
            />
            {extraError ? (
              <p className={`mt-1 text-sm ${c.error}`} data-testid="extra-id-check">
                {msg(extraError)}
              </p>
            ) : null}
          </div>
        ) : null}
        <AddressField
          label={t("refundAddress", { symbol: fromSymbol, network: networkName(fromC?.network ?? "") })}
          name="refundAddress"
          value={refundAddress}
          onChange={setRefundAddress}
          error={refundError}
          valid={mounted && refundCheck?.valid === true}
          validText={t("refundValid")}
          hint={t("refundHint")}
          testId="refund-address"
        />
        {state.errors.form ? (
          <p role="alert" className={`text-sm font-medium ${c.error}`} data-testid="form-error">
            {msg(state.errors.form)}
          </p>
        ) : null}
        <AccentButton type="submit" name="intent" value="exchange" className="w-full" disabled={pending} data-testid="create-order">
          {pending ? t("submitting") : t("submit")}
        </AccentButton>
      </div>
    </form>
  );
}

/** The form, framed in the page's or widget's theme (the page component gives its header and title). */
export function HostedExchange(props: {
  cfg: HostedConfig;
  currencies: FormCurrency[];
  widget: boolean;
  lang: string | null;
  initial: ExchangeState;
}) {
  return <Flow {...props} />;
}
