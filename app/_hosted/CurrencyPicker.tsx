"use client";

import { useEffect, useId, useMemo, useRef, useState } from "react";
import type { HostedCurrency } from "./api";
import { classes, useTheme } from "./theme";

/** A currency picker: a button showing the current one, and a searchable list (ticker, name or network). */
export function CurrencyPicker({
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
