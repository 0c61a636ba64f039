"use client";

import { ApiError, fmt, type HostedOrderView as OrderView } from "./api";
import { useHostedOrder, useSandboxDeposit } from "./queries";
import { AccentButton, CopyText, classes, mmss, useCountdown, useTheme } from "./theme";

// An order as its user sees it: the deposit screen while it waits (amount, address, extra id,
// QR code, copy buttons, expiry countdown), then its timeline, hashes with explorer links, and
// the refund when it failed. It polls its status with ETag (304 while nothing changed), as
// often as Poll-After says (useHostedOrder).

const STEPS = ["waiting", "confirming", "exchanging", "sending", "finished"] as const;
const LABEL: Record<string, string> = {
  waiting: "Waiting for your deposit",
  confirming: "Deposit received, confirming",
  exchanging: "Exchanging",
  sending: "Sending to you",
  finished: "Finished",
  failed: "Failed",
};
const REASONS: Record<string, string> = {
  expired: "No deposit arrived before the order expired.",
  deposit_below_minimum: "The deposit was below the minimum amount.",
  deposit_above_maximum: "The deposit was above the maximum amount.",
  deposit_amount_mismatch: "The deposit differs from the fixed-rate amount.",
  deposit_late: "The deposit arrived after the fixed rate's window.",
  engine_error: "The exchange could not be completed.",
  refunded: "The exchange sent the deposit back.",
  provider_failed: "The exchange could not be completed.",
};

function Field({ label, value, copy, mono = true }: { label: string; value: string; copy?: string; mono?: boolean }) {
  const c = classes(useTheme().dark);
  return (
    <div className={`rounded-lg p-3 ${c.subtle}`}>
      <div className={`text-xs font-medium uppercase tracking-wide ${c.muted}`}>{label}</div>
      <div className="mt-1 flex items-start justify-between gap-2">
        <span
          className={`min-w-0 break-all ${mono ? "font-mono text-sm" : "font-semibold"}`}
          data-testid={`field-${label.toLowerCase().replace(/\W+/g, "-")}`}
        >
          {value}
        </span>
        {copy ? <CopyText text={copy} label={label.toLowerCase()} /> : null}
      </div>
    </div>
  );
}

function Hash({ label, hash, href }: { label: string; hash: string; href: string | null }) {
  const c = classes(useTheme().dark);
  return (
    <div className="text-sm">
      <span className={c.muted}>{label}: </span>
      {href ? (
        <a className={`break-all font-mono ${c.link}`} href={href} target="_blank" rel="noopener noreferrer">
          {hash}
          <span className="sr-only"> (opens the block explorer)</span>
        </a>
      ) : (
        <span className="break-all font-mono">{hash}</span>
      )}
    </div>
  );
}

export function OrderPanel({
  id,
  token,
  initial,
  sandbox,
  statusUrl,
}: {
  id: string;
  token: string;
  initial: OrderView | null;
  sandbox: boolean;
  /** The link the user keeps (shown in a widget, where the page's own URL is the embedding site's). */
  statusUrl?: string;
}) {
  const { dark } = useTheme();
  const c = classes(dark);
  const status = useHostedOrder(id, token, initial);
  const deposit = useSandboxDeposit(id, token);
  const order = status.data ?? null;
  const notFound = status.error instanceof ApiError && status.error.status === 404;
  // A failed read shows until a read succeeds; a failed deposit until the order is read after it.
  const error = status.isError
    ? status.error.message || "Could not read the order."
    : deposit.isError && status.dataUpdatedAt <= deposit.submittedAt
      ? deposit.error.message || "The deposit failed."
      : null;

  const expiresIn = useCountdown(order?.status === "waiting" ? order.expiresAt : null);
  const fixedIn = useCountdown(order?.status === "waiting" && order.rateType === "fixed" ? order.fixedUntil : null);

  if (notFound)
    return (
      <div role="alert" className={`rounded-xl border p-5 ${c.card}`}>
        <h2 className="text-lg font-semibold">Order not found</h2>
        <p className={`mt-1 text-sm ${c.muted}`}>
          This link is not complete: open the full status link you were given when you made the order.
        </p>
      </div>
    );
  if (!order) return <p className={c.muted}>Loading the order…</p>;

  const failed = order.status === "failed";
  const stepIndex = STEPS.indexOf(order.status as (typeof STEPS)[number]);
  const reached = new Map((order.history ?? []).map((h) => [h.status, h.at]));

  return (
    <div className="space-y-4" data-testid="order-panel" data-status={order.status}>
      <div className={`rounded-xl border p-4 sm:p-5 ${c.card}`}>
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 className="text-lg font-semibold" aria-live="polite" data-testid="order-status">
            {LABEL[order.status] ?? order.status}
          </h2>
          <span className={`font-mono text-xs ${c.muted}`}>Order {order.id}</span>
        </div>
        <p className={`mt-1 text-sm ${c.muted}`}>
          You send{" "}
          <strong className="font-semibold">
            {fmt(order.fromAmount)} {order.from.symbol}
          </strong>{" "}
          ({order.from.network}) and receive{" "}
          <strong className="font-semibold">
            {order.rateType === "fixed" ? "" : "about "}
            {fmt(order.toAmount)} {order.to.symbol}
          </strong>{" "}
          ({order.to.network}).
        </p>
      </div>

      {order.status === "waiting" ? (
        <section aria-labelledby="deposit-h" className={`rounded-xl border p-4 sm:p-5 ${c.card}`}>
          <h3 id="deposit-h" className="font-semibold">
            Send exactly this amount to this address
          </h3>
          <div className="mt-3 grid gap-4 sm:grid-cols-[1fr_auto]">
            <div className="space-y-2">
              <Field label="Amount" value={`${fmt(order.fromAmount)} ${order.from.symbol}`} copy={fmt(order.fromAmount)} mono={false} />
              <Field label={`Deposit address (${order.from.network})`} value={order.payinAddress} copy={order.payinAddress} />
              {order.payinExtraId ? (
                <Field label={order.from.extraIdName ?? "Extra ID"} value={order.payinExtraId} copy={order.payinExtraId} />
              ) : null}
            </div>
            {order.depositQr ? (
              // biome-ignore lint/performance/noImgElement: an inline SVG data URL made on the server; nothing for next/image to optimise
              <img
                src={order.depositQr}
                alt={`QR code of the deposit address ${order.payinAddress}`}
                width={176}
                height={176}
                className="mx-auto rounded-lg bg-white p-1"
                data-testid="deposit-qr"
              />
            ) : null}
          </div>
          {order.payinExtraId ? (
            <p className={`mt-3 text-sm font-medium ${c.error}`}>
              Include the {order.from.extraIdName ?? "extra ID"}, or the deposit cannot be matched.
            </p>
          ) : null}
          <p className={`mt-3 text-sm ${c.muted}`}>
            {expiresIn !== null ? (
              <>
                Expires in{" "}
                <span className="tabular font-semibold" data-testid="expiry-countdown">
                  {mmss(expiresIn)}
                </span>
                .{" "}
              </>
            ) : null}
            {fixedIn !== null ? (
              <>
                Fixed rate: deposit within <span className="tabular font-semibold">{mmss(fixedIn)}</span> to receive exactly{" "}
                {fmt(order.toAmount)} {order.to.symbol}.
              </>
            ) : null}
          </p>
          {sandbox ? (
            <div className={`mt-4 rounded-lg border border-dashed p-3 text-sm ${dark ? "border-zinc-600" : "border-zinc-300"}`}>
              <p className={c.muted}>Sandbox: nothing is really sent. Simulate the deposit to watch the order go through.</p>
              <AccentButton className="mt-2" disabled={deposit.isPending} onClick={() => deposit.mutate()}>
                Simulate the deposit
              </AccentButton>
            </div>
          ) : null}
        </section>
      ) : null}

      <section aria-labelledby="timeline-h" className={`rounded-xl border p-4 sm:p-5 ${c.card}`}>
        <h3 id="timeline-h" className="font-semibold">
          Progress
        </h3>
        <ol className="mt-3 space-y-2">
          {STEPS.map((s, i) => {
            const done = !failed && (i < stepIndex || order.status === "finished");
            const current = !failed && i === stepIndex && order.status !== "finished";
            const at = reached.get(s);
            return (
              <li key={s} className="flex items-center gap-3 text-sm" aria-current={current ? "step" : undefined}>
                <span
                  aria-hidden="true"
                  className={`inline-block size-3 rounded-full ${done ? "" : current ? "animate-pulse" : dark ? "bg-zinc-700" : "bg-zinc-300"}`}
                  style={done || current ? { background: "var(--accent)" } : undefined}
                />
                <span className={done || current ? "font-medium" : c.muted}>{LABEL[s]}</span>
                {at ? <span className={`ml-auto tabular text-xs ${c.muted}`}>{new Date(at).toLocaleTimeString()}</span> : null}
              </li>
            );
          })}
          {failed ? (
            <li className={`text-sm font-semibold ${c.error}`}>
              Failed{order.failureReason ? `: ${REASONS[order.failureReason] ?? order.failureReason}` : ""}
            </li>
          ) : null}
        </ol>
        <div className="mt-3 space-y-1">
          {order.payinHash ? <Hash label="Deposit" hash={order.payinHash} href={order.links.payin} /> : null}
          {order.payoutHash ? <Hash label="Payout" hash={order.payoutHash} href={order.links.payout} /> : null}
          {order.amountReceived != null ? (
            <p className="text-sm">
              <span className={c.muted}>Received: </span>
              {fmt(order.amountReceived)} {order.from.symbol}
            </p>
          ) : null}
        </div>
        {failed && order.refund ? (
          <div className={`mt-3 rounded-lg p-3 text-sm ${c.subtle}`} data-testid="refund">
            <p className="font-medium">
              Refund{order.refund.amount != null ? ` of ${fmt(order.refund.amount)} ${order.from.symbol}` : ""}:{" "}
              {order.refund.state === "sent"
                ? "sent"
                : order.refund.state === "awaiting_address"
                  ? "waiting for a refund address (contact support)"
                  : "pending"}
            </p>
            {order.refund.hash ? <Hash label="Refund" hash={order.refund.hash} href={order.links.refund} /> : null}
          </div>
        ) : null}
      </section>

      {statusUrl ? (
        <p className={`text-sm ${c.muted}`}>
          Keep this link to follow the order:{" "}
          <a className={`break-all ${c.link}`} href={statusUrl} target="_blank" rel="noopener" data-testid="status-link">
            status page
          </a>
        </p>
      ) : null}
      {error ? (
        <p role="alert" className={`text-sm ${c.error}`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
