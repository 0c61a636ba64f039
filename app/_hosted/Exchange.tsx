"use client";

import { useEffect, useId, useMemo, useRef, useState } from "react";
import {
  type AddressCheck,
  ApiError,
  checkAddress,
  createOrder,
  type Estimate,
  getEstimate,
  type HostedConfig,
  type HostedCurrency,
  type OrderView,
} from "./api";
import { OrderPanel } from "./OrderPanel";
import { AccentButton, classes, HostedFrame, mmss, useCountdown, useTheme } from "./theme";

// The exchange flow of the hosted page (/x/<reseller>) and the widget (/w/<widget>): pick the
// pair, the amount to send or to receive, floating or fixed rate, the destination (checked as
// it is typed), then the order with its deposit screen and status, in place.

const AMOUNT_RE = /^\d{1,30}(?:\.\d{0,30})?$/;

/** `value` once it has stayed the same (compared as JSON) for `ms`; the same object until then, so effects on it run once per change. */
function useDebounced<T>(value: T, ms: number): T {
  const key = JSON.stringify(value);
  const [v, setV] = useState(key);
  useEffect(() => {
    const t = setTimeout(() => setV(key), ms);
    return () => clearTimeout(t);
  }, [key, ms]);
  return useMemo(() => JSON.parse(v) as T, [v]);
}

function CurrencyPicker({
  label,
  currencies,
  value,
  onChange,
}: {
  label: string;
  currencies: HostedCurrency[];
  value: string;
  onChange: (ticker: string) => void;
}) {
  const { dark } = useTheme();
  const c = classes(dark);
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const searchId = useId();
  const listId = useId();
  const searchRef = useRef<HTMLInputElement>(null);
  const current = currencies.find((x) => x.ticker === value);
  const matches = useMemo(() => {
    const q = query.trim().toLowerCase();
    if (!q) return currencies;
    return currencies.filter(
      (x) =>
        x.ticker.includes(q) ||
        x.symbol.toLowerCase().includes(q) ||
        x.name.toLowerCase().includes(q) ||
        x.network.toLowerCase().includes(q),
    );
  }, [currencies, query]);
  useEffect(() => {
    if (open) searchRef.current?.focus();
  }, [open]);
  const slug = label.toLowerCase().replace(/\W+/g, "-");
  return (
    <div className="relative">
      <button
        type="button"
        className={`flex min-h-11 w-full items-center justify-between gap-2 rounded-lg border px-3 py-2 text-left ${c.input}`}
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen(!open)}
        data-testid={`pick-${slug}`}
      >
        <span className="sr-only">{label}: </span>
        <span className="min-w-0 truncate">
          <span className="font-semibold">{current?.symbol ?? value.toUpperCase()}</span>{" "}
          <span className={`text-sm ${c.muted}`}>
            {current?.name} · {current?.network}
          </span>
        </span>
        <span aria-hidden="true">▾</span>
      </button>
      {open ? (
        <div className={`absolute z-20 mt-1 w-full rounded-lg border p-2 shadow-lg ${c.card}`}>
          <label htmlFor={searchId} className="sr-only">
            Search {label.toLowerCase()} by ticker, name or network
          </label>
          <input
            id={searchId}
            ref={searchRef}
            type="search"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Escape") setOpen(false);
            }}
            placeholder="Ticker, name or network"
            className={`w-full rounded-md border px-3 py-2 ${c.input}`}
            data-testid={`search-${slug}`}
          />
          <ul id={listId} className="mt-2 max-h-64 overflow-y-auto" aria-label={`${label} currencies`}>
            {matches.slice(0, 100).map((x, i) => (
              <li key={x.ticker}>
                {i === 0 && x.popular && !query ? <p className={`px-2 pt-1 text-xs font-semibold uppercase ${c.muted}`}>Popular</p> : null}
                <button
                  type="button"
                  className={`flex w-full items-center justify-between gap-2 rounded-md px-2 py-2 text-left ${x.ticker === value ? c.subtle : ""} hover:opacity-80`}
                  onClick={() => {
                    onChange(x.ticker);
                    setOpen(false);
                    setQuery("");
                  }}
                  data-ticker={x.ticker}
                >
                  <span>
                    <span className="font-semibold">{x.symbol}</span> <span className="text-sm">{x.name}</span>
                  </span>
                  <span className={`rounded px-1.5 py-0.5 text-xs ${c.subtle}`}>{x.network}</span>
                </button>
              </li>
            ))}
            {matches.length === 0 ? <li className={`px-2 py-2 text-sm ${c.muted}`}>No currency matches.</li> : null}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

function Flow({ cfg, currencies, widget }: { cfg: HostedConfig; currencies: HostedCurrency[]; widget: boolean }) {
  const { dark } = useTheme();
  const c = classes(dark);
  const known = (t: string | null | undefined, fallback: string) => (t && currencies.some((x) => x.ticker === t) ? t : fallback);
  const [from, setFrom] = useState(() => known(cfg.defaultFrom, currencies[0]?.ticker ?? "btc"));
  const [to, setTo] = useState(() => known(cfg.defaultTo, currencies[1]?.ticker ?? "eth"));
  const [mode, setMode] = useState<"send" | "receive">("send");
  const [amount, setAmount] = useState(cfg.defaultAmount ?? "");
  const [rateType, setRateType] = useState<"floating" | "fixed">("floating");
  const [estimate, setEstimate] = useState<Estimate | null>(null);
  const [estimateError, setEstimateError] = useState<string | null>(null);
  const [refresh, setRefresh] = useState(0);
  const [address, setAddress] = useState("");
  const [extraId, setExtraId] = useState("");
  const [refundAddress, setRefundAddress] = useState("");
  const [check, setCheck] = useState<AddressCheck | null>(null);
  const [refundCheck, setRefundCheck] = useState<AddressCheck | null>(null);
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<string | null>(null);
  const [made, setMade] = useState<{ id: string; token: string; order: OrderView; statusPath: string } | null>(null);
  const ids = { amount: useId(), address: useId(), extra: useId(), refund: useId(), addrMsg: useId(), refundMsg: useId() };
  const toCurrency = currencies.find((x) => x.ticker === to);
  const fromCurrency = currencies.find((x) => x.ticker === from);
  const fixed = rateType === "fixed" || mode === "receive";

  // The estimate: again when anything changes, every 15 s, and when a fixed quote's countdown ends.
  const q = useDebounced({ from, to, amount: amount.trim(), mode, fixed, refresh }, 350);
  useEffect(() => {
    let stale = false;
    if (!AMOUNT_RE.test(q.amount) || Number(q.amount) === 0) {
      setEstimate(null);
      setEstimateError(q.amount ? "Enter an amount such as 0.1." : null);
      return;
    }
    getEstimate(cfg, {
      from: q.from,
      to: q.to,
      ...(q.mode === "send" ? { amount: q.amount } : { toAmount: q.amount }),
      rateType: q.fixed ? "fixed" : "floating",
    }).then(
      (e) => {
        if (stale) return;
        setEstimate(e);
        setEstimateError(null);
      },
      (e: unknown) => {
        if (stale) return;
        setEstimate(null);
        setEstimateError(e instanceof Error ? e.message : "No estimate.");
      },
    );
    return () => {
      stale = true;
    };
  }, [cfg, q]);
  const quoteLeft = useCountdown(estimate && fixed ? estimate.validUntil : null);
  useEffect(() => {
    if (quoteLeft === 0) setRefresh((n) => n + 1);
  }, [quoteLeft]);
  useEffect(() => {
    if (fixed) return;
    const t = setInterval(() => setRefresh((n) => n + 1), 15_000);
    return () => clearInterval(t);
  }, [fixed]);

  // The destination (and refund) address, checked against the registry as it is typed.
  const typed = useDebounced({ to, address: address.trim(), extraId: extraId.trim() }, 300);
  useEffect(() => {
    let stale = false;
    if (!typed.address) return setCheck(null);
    checkAddress(typed.to, typed.address, typed.extraId || undefined).then(
      (r) => stale || setCheck(r),
      () => stale || setCheck(null),
    );
    return () => {
      stale = true;
    };
  }, [typed]);
  const typedRefund = useDebounced({ from, address: refundAddress.trim() }, 300);
  useEffect(() => {
    let stale = false;
    if (!typedRefund.address) return setRefundCheck(null);
    checkAddress(typedRefund.from, typedRefund.address).then(
      (r) => stale || setRefundCheck(r),
      () => stale || setRefundCheck(null),
    );
    return () => {
      stale = true;
    };
  }, [typedRefund]);

  if (made)
    return (
      <OrderPanel
        id={made.id}
        token={made.token}
        initial={made.order}
        sandbox={cfg.sandbox}
        statusUrl={widget ? made.statusPath : undefined}
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
  const canCreate = !!estimate && addressOk && refundCheck?.valid !== false && !creating;

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (!canCreate) return;
    setCreating(true);
    setCreateError(null);
    try {
      const r = await createOrder(cfg, {
        from,
        to,
        ...(mode === "send" ? { amount: amount.trim() } : { toAmount: amount.trim() }),
        rateType: fixed ? "fixed" : "floating",
        address: address.trim(),
        ...(extraId.trim() ? { extraId: extraId.trim() } : {}),
        ...(refundAddress.trim() ? { refundAddress: refundAddress.trim() } : {}),
      });
      setMade({ id: r.order.id, token: r.token, order: r.order, statusPath: r.statusPath });
      // On the hosted page the address bar becomes the status link the user keeps.
      if (!widget) window.history.replaceState(null, "", r.statusPath);
    } catch (err) {
      setCreateError(err instanceof ApiError || err instanceof Error ? err.message : "The order could not be created.");
    } finally {
      setCreating(false);
    }
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

        <div className={`rounded-lg p-3 ${c.subtle}`} aria-live="polite" data-testid="estimate">
          {estimate ? (
            <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
              <dt className={c.muted}>You send</dt>
              <dd className="text-right font-semibold tabular" data-testid="estimate-from">
                {estimate.fromAmount} {fromCurrency?.symbol}
              </dd>
              <dt className={c.muted}>You get {fixed ? "" : "about"}</dt>
              <dd className="text-right text-lg font-semibold tabular" data-testid="estimate-to">
                {estimate.toAmount} {toCurrency?.symbol}
              </dd>
              <dt className={c.muted}>Fee</dt>
              <dd className="text-right tabular">{estimate.fee} (included)</dd>
              <dt className={c.muted}>Limits</dt>
              <dd className="text-right tabular">
                {estimate.minAmount} – {estimate.maxAmount} {fromCurrency?.symbol}
              </dd>
              {fixed && quoteLeft !== null ? (
                <>
                  <dt className={c.muted}>Quote refreshes in</dt>
                  <dd className="text-right tabular" data-testid="quote-countdown">
                    {mmss(quoteLeft)}
                  </dd>
                </>
              ) : null}
            </dl>
          ) : (
            <p className={`text-sm ${estimateError ? c.error : c.muted}`}>{estimateError ?? "Enter an amount to see what you get."}</p>
          )}
          {fixed && estimate ? (
            <p className={`mt-2 text-xs ${c.muted}`}>
              The fixed rate is locked when you create the order; you then have a set time to deposit.
            </p>
          ) : null}
        </div>
      </div>

      <div className={`space-y-3 rounded-xl border p-4 sm:p-5 ${c.card}`}>
        <div>
          <label htmlFor={ids.address} className="mb-1 block text-sm font-medium">
            Your {toCurrency?.symbol ?? to} address ({toCurrency?.network})
          </label>
          <input
            id={ids.address}
            value={address}
            onChange={(e) => setAddress(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={check ? !check.valid : undefined}
            aria-describedby={ids.addrMsg}
            className={`w-full rounded-lg border px-3 py-2 font-mono text-sm ${c.input}`}
            data-testid="address"
          />
          <p id={ids.addrMsg} className={`mt-1 text-sm ${check ? (check.valid ? c.ok : c.error) : c.muted}`} data-testid="address-check">
            {check ? (check.valid ? "Valid address." : check.reason) : "Where you receive the exchanged coins."}
          </p>
        </div>
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
        <div>
          <label htmlFor={ids.refund} className="mb-1 block text-sm font-medium">
            Refund address ({fromCurrency?.symbol ?? from}, optional)
          </label>
          <input
            id={ids.refund}
            value={refundAddress}
            onChange={(e) => setRefundAddress(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={refundCheck ? !refundCheck.valid : undefined}
            aria-describedby={ids.refundMsg}
            className={`w-full rounded-lg border px-3 py-2 font-mono text-sm ${c.input}`}
          />
          <p id={ids.refundMsg} className={`mt-1 text-sm ${refundCheck ? (refundCheck.valid ? c.ok : c.error) : c.muted}`}>
            {refundCheck
              ? refundCheck.valid
                ? "Valid refund address."
                : refundCheck.reason
              : "Where a deposit is returned if the exchange cannot be made."}
          </p>
        </div>
        {createError ? (
          <p role="alert" className={`text-sm font-medium ${c.error}`}>
            {createError}
          </p>
        ) : null}
        <AccentButton type="submit" className="w-full" disabled={!canCreate} data-testid="create-order">
          {creating ? "Creating the order…" : "Exchange"}
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
