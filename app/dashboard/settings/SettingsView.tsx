"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { setMarkupAction } from "@/app/dashboard/actions";
import { callAction } from "@/app/dashboard/call-action";
import { queryKeys } from "@/app/dashboard/query-keys";
import { fetchRead } from "@/app/dashboard/read";
import { displayAmount, formatUsd, priceNote } from "@/components/format";
import { Alert, Button, Card, CardHeader, PageHeader } from "@/components/ui";
import type { SettingsView as Settings } from "@/lib/dashboard/types";
import { applyRate } from "@/lib/domain/quote-math";
import { bpsToPercent, D, formatAmount } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";
import { SessionsCard } from "./SessionsCard";

/** "SideShift up to 175 bps, FixedFloat up to 275 bps". */
const providerCapsText = (s: Settings) =>
  s.providerCaps.map((p) => (p.maxMarkupBps < 0 ? `${p.label}: none` : `${p.label} up to ${p.maxMarkupBps} bps`)).join(", ");

function parseBps(raw: string, s: Settings): { value: number | null; error: string | null } {
  const cap = s.capBps;
  const t = raw.trim();
  if (t === "") return { value: null, error: "Enter a markup in basis points." };
  if (!/^\d+$/.test(t)) return { value: null, error: "Use a whole number of basis points (1 bps = 0.01%)." };
  const n = Number(t);
  if (n > cap)
    return {
      value: null,
      error:
        s.capLimitedBy === "providers"
          ? `The highest markup the exchange providers can route is ${cap} bps (${bpsToPercent(cap)}): each takes the platform fee plus your markup only up to its commission cap (${providerCapsText(s)}). A higher markup would have every estimate and order refused.`
          : `The highest markup allowed is ${cap} bps (${bpsToPercent(cap)}).`,
    };
  return { value: n, error: null };
}

/** The range of markups the enabled providers route now, and which provider takes how much. */
function MarkupRangeNote({ s, value }: { s: Settings; value: number | null }) {
  if (!s.providerCaps.length) return null;
  const takers = value === null ? [] : s.providerCaps.filter((p) => p.maxMarkupBps >= value);
  return (
    <div data-testid="markup-range" className="rounded-md bg-zinc-50 px-3 py-2 text-xs text-zinc-600">
      <p>
        Markups the exchange providers can route now: 0 to {s.capBps} bps ({bpsToPercent(s.capBps)}).
      </p>
      <p className="mt-1">
        Per provider (platform fee of {s.platformFeeBps} bps included in its cap): {providerCapsText(s)}.
      </p>
      {value !== null && value <= s.capBps && takers.length < s.providerCaps.length ? (
        <p className="mt-1 text-amber-700">
          At {value} bps only {takers.map((p) => p.label).join(", ")} can take your orders: fewer providers compete for the best rate.
        </p>
      ) : null}
    </div>
  );
}

/** `canSetMarkup`: the member's role may change the markup (owners, lib/teams/roles.ts); the server refuses others anyway. */
export function SettingsView({ initial, canSetMarkup }: { initial: Settings; canSetMarkup: boolean }) {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: queryKeys.settings, queryFn: ({ signal }) => fetchRead("settings", {}, signal), initialData: initial });
  const s = q.data ?? initial;
  const [raw, setRaw] = useState(String(s.markupBps));
  const [saved, setSaved] = useState<number | null>(null);
  const inputId = useId();
  const rangeId = useId();
  const errId = useId();
  const helpId = useId();
  const { value, error } = parseBps(raw, s);
  const save = useMutation({
    mutationFn: (bps: number) => callAction(setMarkupAction(bps)),
    onSuccess: (d) => {
      setSaved(d.markupBps);
      void qc.invalidateQueries({ queryKey: queryKeys.settings });
      void qc.invalidateQueries({ queryKey: queryKeys.overview.all });
    },
  });
  const shown = value ?? s.markupBps;
  const changed = value !== null && value !== s.markupBps;

  return (
    <>
      <PageHeader title="Settings" description="Your markup is added on top of the platform fee to every order made with your API keys." />
      <div className="grid gap-6 lg:grid-cols-5">
        <Card className="lg:col-span-3" aria-labelledby="markup-title">
          <CardHeader id="markup-title" title="Markup" description={`Current markup: ${s.markupBps} bps (${bpsToPercent(s.markupBps)})`} />
          <form
            className="space-y-4 px-4 py-4 sm:px-5"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              setSaved(null);
              if (value !== null) save.mutate(value);
            }}
          >
            <div>
              <label htmlFor={inputId} className="block text-sm font-medium text-zinc-700">
                Markup in basis points
              </label>
              <div className="mt-1 flex items-center gap-3">
                <input
                  id={inputId}
                  name="markupBps"
                  inputMode="numeric"
                  autoComplete="off"
                  value={raw}
                  onChange={(e) => {
                    setRaw(e.target.value);
                    setSaved(null);
                    save.reset();
                  }}
                  aria-invalid={error ? true : undefined}
                  aria-describedby={`${helpId} ${error ? errId : ""}`}
                  className="w-32 rounded-md border border-zinc-300 px-3 py-2 text-sm tabular shadow-sm aria-invalid:border-rose-400"
                />
                <span className="text-sm text-zinc-600" aria-live="polite">
                  = {value !== null ? bpsToPercent(value) : "—"}
                </span>
              </div>
              <p id={helpId} className="mt-1 text-xs text-zinc-500">
                100 bps = 1%. From 0 to {s.capBps} bps ({bpsToPercent(s.capBps)}).
              </p>
              {error ? (
                <p id={errId} className="mt-1 text-sm text-rose-700">
                  {error}
                </p>
              ) : null}
            </div>
            <MarkupRangeNote s={s} value={value} />
            <div>
              <label htmlFor={rangeId} className="sr-only">
                Markup slider
              </label>
              <input
                id={rangeId}
                type="range"
                min={0}
                max={s.capBps}
                step={5}
                value={shown}
                onChange={(e) => {
                  setRaw(e.target.value);
                  setSaved(null);
                }}
                className="w-full accent-indigo-600"
              />
              <div className="flex justify-between text-xs text-zinc-500">
                <span>0%</span>
                <span>{bpsToPercent(s.capBps)}</span>
              </div>
            </div>
            <div className="flex flex-wrap items-center gap-3">
              {canSetMarkup ? null : <span className="text-sm text-zinc-500">Only an owner of the team can change the markup.</span>}
              <Button type="submit" disabled={!canSetMarkup || !changed || save.isPending}>
                {save.isPending ? "Saving…" : "Save markup"}
              </Button>
              {changed ? (
                <Button variant="ghost" onClick={() => setRaw(String(s.markupBps))}>
                  Reset
                </Button>
              ) : null}
            </div>
            {save.isError ? <Alert>{save.error.message}</Alert> : null}
            {saved !== null && !save.isError ? (
              <Alert tone="success">
                Saved: new orders use {saved} bps ({bpsToPercent(saved)}). Orders created before keep the markup they were made with.
              </Alert>
            ) : null}
            <p className="text-xs text-zinc-500">A change applies to new estimates and orders only.</p>
          </form>
        </Card>

        <Card className="lg:col-span-2" aria-labelledby="example-title">
          <CardHeader id="example-title" title="Example" description="What a customer would see right now" />
          <div className="px-4 py-4 sm:px-5">
            <Example s={s} bps={shown} />
          </div>
        </Card>
      </div>
      <div className="mt-6 lg:w-3/5">
        <SessionsCard />
      </div>
    </>
  );
}

function Example({ s, bps }: { s: Settings; bps: number }) {
  const sample = s.sample;
  const totalFee = bpsToPercent(s.platformFeeBps + bps);
  if (!sample) {
    return (
      <p className="text-sm text-zinc-600">
        On an order worth $1,000, a markup of {bpsToPercent(bps)} earns you about{" "}
        {formatUsd(formatAmount(new D(1000).mul(bps).div(10_000)))}. The customer sees a total fee of {totalFee}.
      </p>
    );
  }
  // The same math the API uses (lib/quotes applyRate): rounded down to the destination precision.
  const raw = new D(sample.rawToAmount);
  const m = applyRate(raw, new D(1), sample.toPrecision, Math.min(bps, 9_999));
  const to = sample.to.toUpperCase();
  const profitUsd = usdValue(m.profit, sample.toPriceUsd);
  return (
    <div data-testid="markup-example">
      <p className="text-sm text-zinc-600">
        A customer exchanges{" "}
        <span className="font-medium text-zinc-900">
          {displayAmount(sample.fromAmount)} {sample.from.toUpperCase()}
        </span>{" "}
        to {to}.
      </p>
      <dl className="mt-3 space-y-2 text-sm tabular">
        <div className="flex justify-between gap-4">
          <dt className="text-zinc-500">Before your markup</dt>
          <dd>{displayAmount(formatAmount(m.rawToAmount), to)}</dd>
        </div>
        <div className="flex justify-between gap-4">
          <dt className="text-zinc-500">Customer receives</dt>
          <dd className="font-medium" data-testid="example-to-amount">
            {displayAmount(formatAmount(m.toAmount), to)}
          </dd>
        </div>
        <div className="flex justify-between gap-4 border-t border-zinc-100 pt-2">
          <dt className="font-medium text-zinc-900">Your profit</dt>
          <dd className="text-right font-semibold text-emerald-700" data-testid="example-profit">
            {displayAmount(formatAmount(m.profit), to)}
            {profitUsd ? (
              <span className="block text-xs font-normal text-zinc-500">
                ≈ {formatUsd(formatAmount(profitUsd))} ({priceNote({ priceSource: sample.toPriceSource, priceDate: sample.toPriceDate })})
              </span>
            ) : null}
          </dd>
        </div>
      </dl>
      <p className="mt-3 text-xs text-zinc-500">
        Fee shown to the customer: {totalFee} (platform {bpsToPercent(s.platformFeeBps)} + your {bpsToPercent(bps)}). Profit is paid in the
        currency the customer receives.
      </p>
    </div>
  );
}
