"use client";

import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { queryKeys } from "@/app/dashboard/query-keys";
import { fetchRead } from "@/app/dashboard/read";
import { displayAmount, formatDateTimeSeconds, formatUsd, priceNote, shortId } from "@/components/format";
import { Alert, Card, CardHeader, cx, StatusBadge, TextLink } from "@/components/ui";
import { CopyButton } from "@/components/ui/CopyButton";
import type { OrderDetail } from "@/lib/dashboard/types";
import type { FailureReason } from "@/lib/domain/order-states";
import { bpsToPercent, D, formatAmount } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";

const HAPPY_PATH = ["waiting", "confirming", "exchanging", "sending", "finished"] as const;
const STEP_TEXT: Record<string, string> = {
  waiting: "Waiting for the deposit",
  confirming: "Deposit received, confirming",
  exchanging: "Exchanging",
  sending: "Sending to the customer",
  finished: "Finished",
  failed: "Failed",
};
const FAILURE_TEXT: Record<FailureReason, string> = {
  expired: "No deposit arrived before the order expired.",
  deposit_below_minimum: "The deposit was below the minimum for this pair.",
  deposit_above_maximum: "The deposit was above the maximum for this pair.",
  engine_error: "The exchange could not be completed.",
  refunded: "The exchange provider sent the deposit back to the refund address.",
  provider_failed: "The exchange provider reported that the exchange failed.",
  deposit_late: "The deposit arrived after the fixed rate's window; it was refunded.",
  deposit_amount_mismatch: "The deposit was not the fixed-rate order's quoted amount; it was refunded.",
};

export function OrderDetailView({ initial }: { initial: OrderDetail }) {
  const q = useQuery({
    queryKey: queryKeys.order(initial.id),
    queryFn: ({ signal }) => fetchRead("order", { id: initial.id }, signal),
    initialData: initial,
    refetchInterval: (query) => {
      const s = query.state.data?.status;
      return s === "finished" || s === "failed" ? false : 3_000;
    },
  });
  const o = q.data ?? initial;
  const to = o.toCurrency;
  const profit = o.realisedProfit ?? o.profit;
  const profitUsd = usdValue(profit, o.toPriceUsd);

  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-3 text-sm">
        <TextLink href="/dashboard/orders">← All orders</TextLink>
      </nav>
      <div className="mb-6 flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <h1 className="flex flex-wrap items-center gap-3 text-2xl font-semibold tracking-tight">
            <span>
              Order <span className="font-mono text-xl break-all">{shortId(o.id)}</span>
            </span>
            <StatusBadge status={o.status} />
          </h1>
          <p className="mt-1 font-mono text-xs break-all text-zinc-500" data-testid="order-id">
            {o.id}
          </p>
        </div>
        <CopyButton text={o.id} label="Copy id" />
      </div>
      {q.isError ? (
        <div className="mb-4">
          <Alert>Could not refresh this order: {q.error.message}</Alert>
        </div>
      ) : null}

      <div className="grid gap-6 lg:grid-cols-3">
        <Card aria-labelledby="timeline-title" className="min-w-0 self-start lg:row-span-2">
          <CardHeader
            id="timeline-title"
            title="Timeline"
            description={o.status === "finished" || o.status === "failed" ? "Final state reached" : "Updates on its own"}
          />
          <Timeline o={o} />
        </Card>

        <Card className="min-w-0 lg:col-span-2" aria-labelledby="amounts-title">
          <CardHeader id="amounts-title" title="Amounts" />
          <dl className="divide-y divide-zinc-100 text-sm tabular">
            <Row label="Customer sends">{displayAmount(o.fromAmount, o.fromCurrency)}</Row>
            {o.amountReceived !== null ? <Row label="Deposit received">{displayAmount(o.amountReceived, o.fromCurrency)}</Row> : null}
            <Row label="Rate after platform fee">
              1 {o.fromCurrency.toUpperCase()} = {displayAmount(formatAmount(new D(o.rate).toSignificantDigits(10, D.ROUND_DOWN)), to)}
            </Row>
            <Row label={`Before your markup (platform fee ${bpsToPercent(o.platformFeeBps)})`}>{displayAmount(o.rawToAmount, to)}</Row>
            <Row label="Your markup">
              <span data-testid="order-markup">
                {o.markupBps} bps ({bpsToPercent(o.markupBps)})
              </span>
            </Row>
            <Row label="Customer receives">
              <span className="font-medium">{displayAmount(o.toAmount, to)}</span>
            </Row>
            <Row
              label={
                <span>
                  Your profit{" "}
                  <span className={cx("ml-1 rounded-full px-2 py-0.5 text-xs font-medium", PROFIT_TONE[o.profitState])}>
                    {o.profitState}
                  </span>
                </span>
              }
            >
              <span
                className={cx("font-semibold", o.profitState === "reversed" ? "text-zinc-400 line-through" : "text-emerald-700")}
                data-testid="order-profit"
              >
                {displayAmount(profit, to)}
              </span>
              {profitUsd ? (
                <span className="block text-xs text-zinc-500">
                  ≈ {formatUsd(formatAmount(profitUsd))} ({priceNote({ priceSource: o.toPriceSource, priceDate: o.toPriceDate })})
                </span>
              ) : null}
            </Row>
          </dl>
        </Card>

        <Card className="min-w-0 lg:col-span-2" aria-labelledby="details-title">
          <CardHeader id="details-title" title="Addresses and details" />
          <dl className="divide-y divide-zinc-100 text-sm">
            <Row label="Created">{formatDateTimeSeconds(o.createdAt)}</Row>
            {o.status === "waiting" ? <Row label="Expires">{formatDateTimeSeconds(o.expiresAt)}</Row> : null}
            <Row label={`Deposit address (${o.fromCurrency.toUpperCase()})`}>
              <Mono>{o.payinAddress}</Mono>
              {o.payinExtraId ? <Mono>Extra id: {o.payinExtraId}</Mono> : null}
            </Row>
            <Row label={`Payout address (${to.toUpperCase()})`}>
              <Mono>{o.payoutAddress}</Mono>
              {o.payoutExtraId ? <Mono>Extra id: {o.payoutExtraId}</Mono> : null}
            </Row>
            {o.refundAddress ? (
              <Row label="Refund address">
                <Mono>{o.refundAddress}</Mono>
                {o.refundExtraId ? <Mono>Extra id: {o.refundExtraId}</Mono> : null}
              </Row>
            ) : null}
            {o.payinHash ? (
              <Row label="Deposit transaction">
                <Mono>{o.payinHash}</Mono>
              </Row>
            ) : null}
            {o.payoutHash ? (
              <Row label="Payout transaction">
                <Mono>{o.payoutHash}</Mono>
              </Row>
            ) : null}
            {o.failureReason ? <Row label="Failure reason">{FAILURE_TEXT[o.failureReason]}</Row> : null}
            {o.refund ? (
              <Row label="Refund">
                {o.refund.state.replace(/_/g, " ")}
                {o.refund.amount ? ` · ${displayAmount(o.refund.amount, o.fromCurrency)}` : ""}
                {o.refund.hash ? <Mono>{o.refund.hash}</Mono> : null}
              </Row>
            ) : null}
            <Row label="Channel">
              <span data-testid="order-channel">
                {o.viaKey ? (
                  <>
                    API key {o.viaKey.name} <span className="font-mono text-zinc-500">{o.viaKey.prefix}…</span>
                  </>
                ) : o.viaWidget ? (
                  <>Widget {o.viaWidget.name}</>
                ) : o.channel === "page" ? (
                  <>Exchange page</>
                ) : (
                  <span className="text-zinc-500">deleted key</span>
                )}
              </span>
            </Row>
          </dl>
        </Card>
      </div>
    </>
  );
}

const PROFIT_TONE = {
  pending: "bg-amber-50 text-amber-800",
  available: "bg-emerald-50 text-emerald-800",
  reversed: "bg-zinc-100 text-zinc-600",
} as const;

function Row({ label, children }: { label: ReactNode; children: ReactNode }) {
  return (
    <div className="grid gap-1 px-4 py-2.5 sm:grid-cols-5 sm:gap-4 sm:px-5">
      <dt className="text-zinc-500 sm:col-span-2">{label}</dt>
      <dd className="min-w-0 sm:col-span-3 sm:text-right">{children}</dd>
    </div>
  );
}

function Mono({ children }: { children: ReactNode }) {
  return <span className="block font-mono text-xs break-all text-zinc-800">{children}</span>;
}

/** The happy path as steps; each reached step shows when it was reached (from the order's events). */
function Timeline({ o }: { o: OrderDetail }) {
  const at = new Map<string, string>();
  for (const e of o.events) if (!at.has(e.status)) at.set(e.status, e.at);
  if (!at.has("waiting")) at.set("waiting", o.createdAt);
  const failed = o.status === "failed";
  const steps: string[] = failed ? [...HAPPY_PATH.filter((s) => at.has(s)), "failed"] : [...HAPPY_PATH];
  const currentIdx = steps.indexOf(o.status);
  return (
    <ol className="px-4 py-4 sm:px-5" data-testid="timeline">
      {steps.map((s, i) => {
        const done = i < currentIdx || (i === currentIdx && (s === "finished" || s === "failed"));
        const current = i === currentIdx && !done;
        const raw = o.events.find((e) => e.status === s)?.note;
        const note = raw ? (FAILURE_TEXT[raw as FailureReason] ?? raw) : null;
        return (
          <li key={s} className="relative flex gap-3 pb-5 last:pb-0" data-step={s} data-reached={at.has(s) ? "true" : "false"}>
            {i < steps.length - 1 ? (
              <span
                aria-hidden
                className={cx("absolute top-6 left-[11px] h-[calc(100%-1.25rem)] w-0.5", i < currentIdx ? "bg-indigo-600" : "bg-zinc-200")}
              />
            ) : null}
            <span
              aria-hidden
              className={cx(
                "relative z-10 mt-0.5 flex size-6 shrink-0 items-center justify-center rounded-full text-xs font-semibold ring-2",
                s === "failed"
                  ? "bg-rose-600 text-white ring-rose-600"
                  : done
                    ? "bg-indigo-600 text-white ring-indigo-600"
                    : current
                      ? "bg-white text-indigo-700 ring-indigo-600"
                      : "bg-white text-zinc-400 ring-zinc-200",
              )}
            >
              {s === "failed" ? "!" : done ? "✓" : i + 1}
            </span>
            <div className="min-w-0">
              <p className={cx("text-sm font-medium", at.has(s) ? "text-zinc-900" : "text-zinc-400")}>
                {STEP_TEXT[s]}
                {current ? <span className="sr-only"> (current)</span> : null}
              </p>
              {at.has(s) ? <p className="text-xs text-zinc-500 tabular">{formatDateTimeSeconds(at.get(s)!)}</p> : null}
              {note ? <p className="text-xs text-zinc-500">{note}</p> : null}
            </div>
          </li>
        );
      })}
    </ol>
  );
}
