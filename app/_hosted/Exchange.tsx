"use client";

import { useEffect, useId, useState } from "react";
import { AddressField } from "./AddressField";
import type { HostedConfig, HostedCurrency } from "./api";
import { CurrencyPicker } from "./CurrencyPicker";
import { EstimateSummary } from "./EstimateSummary";
import { OrderPanel } from "./OrderPanel";
import { useAddressCheck, useCreateOrder, useEstimate } from "./queries";
import { AccentButton, classes, HostedFrame, useCountdown, useTheme } from "./theme";

// The exchange flow of the hosted page (/x/<reseller>) and the widget (/w/<widget>): pick the
// pair, the amount to send or to receive, floating or fixed rate, the destination (checked as
// it is typed), then the order with its deposit screen and status, in place. The form's
// inputs are its state; what the server answers is in react-query (./queries.ts).

function Flow({ cfg, currencies, widget }: { cfg: HostedConfig; currencies: HostedCurrency[]; widget: boolean }) {
  const { dark } = useTheme();
  const c = classes(dark);
  const known = (t: string | null | undefined, fallback: string) => (t && currencies.some((x) => x.ticker === t) ? t : fallback);
  const [from, setFrom] = useState(() => known(cfg.defaultFrom, currencies[0]?.ticker ?? "btc"));
  const [to, setTo] = useState(() => known(cfg.defaultTo, currencies[1]?.ticker ?? "eth"));
  const [mode, setMode] = useState<"send" | "receive">("send");
  const [amount, setAmount] = useState(cfg.defaultAmount ?? "");
  const [rateType, setRateType] = useState<"floating" | "fixed">("floating");
  const [address, setAddress] = useState("");
  const [extraId, setExtraId] = useState("");
  const [refundAddress, setRefundAddress] = useState("");
  const ids = { amount: useId(), extra: useId() };
  const toCurrency = currencies.find((x) => x.ticker === to);
  const fromCurrency = currencies.find((x) => x.ticker === from);
  const fixed = rateType === "fixed" || mode === "receive";

  const { estimate, error: estimateError, refresh } = useEstimate(cfg, { from, to, amount, mode, fixed });
  // A fixed quote is asked again when its countdown ends.
  const quoteLeft = useCountdown(estimate && fixed ? estimate.validUntil : null);
  useEffect(() => {
    if (quoteLeft === 0) void refresh();
  }, [quoteLeft, refresh]);
  const check = useAddressCheck(to, address, extraId);
  const refundCheck = useAddressCheck(from, refundAddress);
  const order = useCreateOrder(cfg);

  if (order.data)
    return (
      <OrderPanel
        id={order.data.order.id}
        token={order.data.token}
        initial={order.data.order}
        sandbox={cfg.sandbox}
        statusUrl={widget ? order.data.statusPath : undefined}
      />
    );

  // Picking the other side's currency swaps the two.
  const pickFrom = (t: string) => {
    if (t === to) setTo(from);
    setFrom(t);
  };
  const pickTo = (t: string) => {
    if (t === from) setFrom(to);
    setTo(t);
  };
  const addressOk = check?.valid === true && check.extraIdValid !== false;
  const canCreate = !!estimate && addressOk && refundCheck?.valid !== false && !order.isPending;

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (!canCreate) return;
    order.mutate(
      {
        from,
        to,
        ...(mode === "send" ? { amount: amount.trim() } : { toAmount: amount.trim() }),
        rateType: fixed ? "fixed" : "floating",
        address: address.trim(),
        ...(extraId.trim() ? { extraId: extraId.trim() } : {}),
        ...(refundAddress.trim() ? { refundAddress: refundAddress.trim() } : {}),
      },
      {
        // On the hosted page the address bar becomes the status link the user keeps.
        onSuccess: (r) => {
          if (!widget) window.history.replaceState(null, "", r.statusPath);
        },
      },
    );
  }

  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      <div className={`space-y-3 rounded-xl border p-4 sm:p-5 ${c.card}`}>
        <div className="grid grid-cols-[minmax(0,1fr)_auto_minmax(0,1fr)] items-end gap-2">
          <div className="min-w-0">
            <span className={`mb-1 block text-sm font-medium ${c.muted}`}>You send</span>
            <CurrencyPicker label="Currency to send" currencies={currencies} value={from} onChange={pickFrom} />
          </div>
          <button
            type="button"
            className={`mb-1 size-10 rounded-full text-lg ${c.secondary}`}
            onClick={() => {
              setFrom(to);
              setTo(from);
            }}
            aria-label="Swap the currencies"
          >
            ⇄
          </button>
          <div className="min-w-0">
            <span className={`mb-1 block text-sm font-medium ${c.muted}`}>You receive</span>
            <CurrencyPicker label="Currency to receive" currencies={currencies} value={to} onChange={pickTo} />
          </div>
        </div>

        <fieldset className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
          <legend className="sr-only">Amount given as</legend>
          <label className="inline-flex min-h-8 items-center gap-2">
            <input type="radio" name="mode" checked={mode === "send"} onChange={() => setMode("send")} /> Amount to send
          </label>
          <label className="inline-flex min-h-8 items-center gap-2">
            <input type="radio" name="mode" checked={mode === "receive"} onChange={() => setMode("receive")} /> Amount to receive
          </label>
        </fieldset>
        <div>
          <label htmlFor={ids.amount} className="mb-1 block text-sm font-medium">
            {mode === "send" ? `Amount of ${fromCurrency?.symbol ?? from} to send` : `Amount of ${toCurrency?.symbol ?? to} to receive`}
          </label>
          <input
            id={ids.amount}
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            onChange={(e) => setAmount(e.target.value.replace(",", "."))}
            className={`w-full rounded-lg border px-3 py-2 text-lg tabular ${c.input}`}
            placeholder="0.1"
            data-testid="amount"
          />
        </div>

        <fieldset className="text-sm">
          <legend className="mb-1 font-medium">Rate</legend>
          <div className="flex flex-wrap gap-x-4 gap-y-1">
            <label className="inline-flex min-h-8 items-center gap-2">
              <input type="radio" name="rate" checked={!fixed} disabled={mode === "receive"} onChange={() => setRateType("floating")} />{" "}
              Floating (market rate when your deposit arrives)
            </label>
            <label className="inline-flex min-h-8 items-center gap-2">
              <input type="radio" name="rate" checked={fixed} onChange={() => setRateType("fixed")} /> Fixed (exact amount, deposit in time)
            </label>
          </div>
        </fieldset>

        <EstimateSummary
          estimate={estimate}
          error={estimateError}
          fixed={fixed}
          quoteLeft={quoteLeft}
          fromSymbol={fromCurrency?.symbol}
          toSymbol={toCurrency?.symbol}
        />
      </div>

      <div className={`space-y-3 rounded-xl border p-4 sm:p-5 ${c.card}`}>
        <AddressField
          label={`Your ${toCurrency?.symbol ?? to} address (${toCurrency?.network})`}
          value={address}
          onChange={setAddress}
          check={check}
          validText="Valid address."
          hint="Where you receive the exchanged coins."
          testId="address"
        />
        {toCurrency?.hasExtraId ? (
          <div>
            <label htmlFor={ids.extra} className="mb-1 block text-sm font-medium">
              {toCurrency.extraIdName ?? "Extra ID"} (if your wallet or exchange needs one)
            </label>
            <input
              id={ids.extra}
              value={extraId}
              onChange={(e) => setExtraId(e.target.value)}
              autoComplete="off"
              aria-invalid={check?.extraIdValid === false ? true : undefined}
              className={`w-full rounded-lg border px-3 py-2 font-mono text-sm ${c.input}`}
            />
            {check?.extraIdValid === false ? (
              <p className={`mt-1 text-sm ${c.error}`}>This {toCurrency.extraIdName ?? "extra ID"} is not valid.</p>
            ) : null}
          </div>
        ) : null}
        <AddressField
          label={`Refund address (${fromCurrency?.symbol ?? from}, optional)`}
          value={refundAddress}
          onChange={setRefundAddress}
          check={refundCheck}
          validText="Valid refund address."
          hint="Where a deposit is returned if the exchange cannot be made."
        />
        {order.error ? (
          <p role="alert" className={`text-sm font-medium ${c.error}`}>
            {order.error.message || "The order could not be created."}
          </p>
        ) : null}
        <AccentButton type="submit" className="w-full" disabled={!canCreate} data-testid="create-order">
          {order.isPending ? "Creating the order…" : "Exchange"}
        </AccentButton>
      </div>
    </form>
  );
}

export function HostedExchange({ cfg, currencies, widget }: { cfg: HostedConfig; currencies: HostedCurrency[]; widget: boolean }) {
  return (
    <HostedFrame theme={{ dark: cfg.theme === "dark", accent: cfg.accent }} widget={widget}>
      <main className={widget ? "mx-auto max-w-lg p-3" : "mx-auto max-w-xl px-4 py-6 sm:py-10"}>
        <h1 className={widget ? "mb-3 text-lg font-semibold" : "mb-4 text-2xl font-semibold tracking-tight"}>{cfg.title}</h1>
        <Flow cfg={cfg} currencies={currencies} widget={widget} />
      </main>
    </HostedFrame>
  );
}

/** The status page (/o/<id>#t=<secret>): the secret is read from the fragment, which never reaches a server log. */
export function HostedStatus({ id, sandbox }: { id: string; sandbox: boolean }) {
  const [token, setToken] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    const t = new URLSearchParams(window.location.hash.slice(1)).get("t");
    setToken(t && /^[1-9A-HJ-NP-Za-km-z]{20,60}$/.test(t) ? t : null);
  }, []);
  return (
    <HostedFrame theme={{ dark: false, accent: "#4f46e5" }} widget={false}>
      <main className="mx-auto max-w-xl px-4 py-6 sm:py-10">
        <h1 className="mb-4 text-2xl font-semibold tracking-tight">Your exchange</h1>
        {token === undefined ? null : token === null ? (
          <div role="alert" className="rounded-xl border border-zinc-200 bg-white p-5">
            <h2 className="text-lg font-semibold">Order not found</h2>
            <p className="mt-1 text-sm text-zinc-600">
              This link is not complete: open the full status link you were given when you made the order.
            </p>
          </div>
        ) : (
          <OrderPanel id={id} token={token} initial={null} sandbox={sandbox} />
        )}
      </main>
    </HostedFrame>
  );
}
