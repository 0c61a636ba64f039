"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import {
  createWebhookEndpointAction,
  redeliverFailedWebhooksAction,
  redeliverWebhookAction,
  rotateWebhookSecretAction,
  sendWebhookTestAction,
  setWebhookEnabledAction,
} from "@/app/dashboard/actions";
import { callAction } from "@/app/dashboard/call-action";
import { queryKeys } from "@/app/dashboard/query-keys";
import { fetchRead } from "@/app/dashboard/read";
import { formatDateTime } from "@/components/format";
import { Alert, Button, Card, CardHeader, EmptyState, PageHeader, TextLink } from "@/components/ui";
import { CopyButton } from "@/components/ui/CopyButton";
import type { DeliveryView, EndpointView } from "@/lib/dashboard/types";
import { WEBHOOK_EVENT_TYPES } from "@/lib/webhooks/events";

type Fresh = { endpoint: EndpointView; secret: string; rotated: boolean } | null;

export function WebhooksView({ initial }: { initial: EndpointView[] }) {
  const qc = useQueryClient();
  const endpoints = useQuery({
    queryKey: queryKeys.webhookEndpoints,
    queryFn: ({ signal }) => fetchRead("webhook-endpoints", {}, signal),
    initialData: initial,
    refetchInterval: 10_000,
  });
  const [fresh, setFresh] = useState<Fresh>(null);
  const [url, setUrl] = useState("");
  const [all, setAll] = useState(true);
  const [events, setEvents] = useState<string[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const urlId = useId();
  const refresh = () => qc.invalidateQueries({ queryKey: queryKeys.webhookEndpoints });

  const create = useMutation({
    mutationFn: () => callAction(createWebhookEndpointAction({ url: url.trim(), events: all ? ["*"] : events })),
    onSuccess: (r) => {
      setFresh({ ...r, rotated: false });
      setUrl("");
      setSelected(r.endpoint.id);
      void refresh();
    },
  });
  const rotate = useMutation({
    mutationFn: (id: string) => callAction(rotateWebhookSecretAction(id)),
    onSuccess: (r) => {
      setFresh({ ...r, rotated: true });
      void refresh();
    },
  });
  const toggle = useMutation({
    mutationFn: (e: EndpointView) => callAction(setWebhookEnabledAction(e.id, !e.enabled)),
    onSuccess: () => void refresh(),
  });
  const test = useMutation({
    mutationFn: (id: string) => callAction(sendWebhookTestAction(id)),
    onSuccess: (_r, id) => {
      setSelected(id);
      void qc.invalidateQueries({ queryKey: queryKeys.webhookDeliveries(id) });
    },
  });
  const rows = endpoints.data ?? [];
  const actionError = rotate.error ?? toggle.error ?? test.error;

  return (
    <>
      <PageHeader
        title="Webhooks"
        description={
          <>
            We POST a signed event to your endpoints when one of your orders is created or changes state (the{" "}
            <TextLink href="https://www.standardwebhooks.com/">Standard Webhooks</TextLink> format). Failed deliveries are retried for about
            a day, in order per order. See <TextLink href="/dashboard/docs#webhooks">how to verify them</TextLink>.
          </>
        }
      />

      {fresh ? (
        <section className="mb-6 rounded-lg border border-emerald-200 bg-emerald-50 p-4 sm:p-5" data-testid="webhook-secret-panel">
          <h2 className="font-semibold text-emerald-900">{fresh.rotated ? "Secret rotated" : "Endpoint added"}</h2>
          <p className="mt-1 text-sm text-emerald-900">
            The signing secret of {fresh.endpoint.url}. Copy it now: it will not be shown again.
            {fresh.rotated ? " The previous secret keeps signing too (a second signature) for 24 hours." : ""}
          </p>
          <div className="mt-3 flex flex-col gap-2 sm:flex-row">
            <input
              readOnly
              aria-label="Signing secret"
              value={fresh.secret}
              onFocus={(e) => e.currentTarget.select()}
              data-testid="webhook-secret"
              className="min-w-0 flex-1 rounded-md border border-emerald-300 bg-white px-3 py-2 font-mono text-sm"
            />
            <div className="flex gap-2">
              <CopyButton text={fresh.secret} label="Copy secret" />
              <Button variant="ghost" size="sm" onClick={() => setFresh(null)}>
                Done
              </Button>
            </div>
          </div>
        </section>
      ) : null}

      <Card className="mb-6" aria-labelledby="add-endpoint-title">
        <CardHeader id="add-endpoint-title" title="Add an endpoint" description="An https:// URL of yours that answers 2xx quickly." />
        <form
          className="flex flex-col gap-3 px-4 py-4 sm:px-5"
          onSubmit={(e) => {
            e.preventDefault();
            if (url.trim()) create.mutate();
          }}
        >
          <div>
            <label htmlFor={urlId} className="block text-sm font-medium text-zinc-700">
              Endpoint URL
            </label>
            <input
              id={urlId}
              type="url"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              required
              maxLength={2000}
              placeholder="https://example.com/webhooks/exchange"
              className="mt-1 block w-full rounded-md border border-zinc-300 px-3 py-2 text-sm shadow-sm placeholder:text-zinc-400"
            />
          </div>
          <fieldset className="text-sm text-zinc-700">
            <legend className="font-medium">Events</legend>
            <label className="mr-4 inline-flex items-center gap-2">
              <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} className="size-4" />
              All events
            </label>
            {WEBHOOK_EVENT_TYPES.map((t) => (
              <label key={t} className="mr-4 inline-flex items-center gap-2">
                <input
                  type="checkbox"
                  disabled={all}
                  checked={all || events.includes(t)}
                  onChange={(e) => setEvents(e.target.checked ? [...events, t] : events.filter((x) => x !== t))}
                  className="size-4"
                />
                <code className="font-mono text-[0.85em]">{t}</code>
              </label>
            ))}
          </fieldset>
          <div>
            <Button type="submit" disabled={create.isPending || !url.trim() || (!all && events.length === 0)}>
              {create.isPending ? "Adding…" : "Add endpoint"}
            </Button>
          </div>
          {create.isError ? <Alert>{create.error.message}</Alert> : null}
        </form>
      </Card>

      <Card className="mb-6" aria-labelledby="endpoints-title">
        <CardHeader id="endpoints-title" title="Your endpoints" description={`${rows.length} of at most 10`} />
        {actionError ? (
          <div className="px-4 py-3">
            <Alert>{actionError.message}</Alert>
          </div>
        ) : null}
        {rows.length === 0 ? (
          <EmptyState title="No endpoints yet">Add one above to get your orders' events pushed to you.</EmptyState>
        ) : (
          <ul className="divide-y divide-zinc-100">
            {rows.map((e) => (
              <li key={e.id} className="px-4 py-3 sm:px-5" data-testid="webhook-endpoint" data-endpoint-id={e.id}>
                <div className="flex flex-wrap items-start justify-between gap-3">
                  <div className="min-w-0">
                    <p className="font-mono text-sm break-all">{e.url}</p>
                    <p className="mt-1 text-xs text-zinc-500">
                      {e.events.includes("*") ? "All events" : e.events.join(", ")} · added {formatDateTime(e.createdAt)}
                      {e.previousSecretUntil ? ` · previous secret signs until ${formatDateTime(e.previousSecretUntil)}` : ""}
                    </p>
                    {e.enabled ? (
                      <span className="mt-1 inline-block rounded bg-emerald-50 px-2 py-0.5 text-xs text-emerald-800">Enabled</span>
                    ) : (
                      <p className="mt-1 text-xs text-rose-700" data-testid="webhook-disabled-reason">
                        Disabled{e.disabledAt ? ` ${formatDateTime(e.disabledAt)}` : ""}: {e.disabledReason}
                      </p>
                    )}
                  </div>
                  <div className="flex flex-wrap gap-2">
                    <Button size="sm" variant="secondary" onClick={() => test.mutate(e.id)} disabled={!e.enabled || test.isPending}>
                      Send test event
                    </Button>
                    <Button size="sm" variant="secondary" onClick={() => setSelected(selected === e.id ? null : e.id)}>
                      {selected === e.id ? "Hide delivery log" : "Delivery log"}
                    </Button>
                    <Button size="sm" variant="secondary" onClick={() => rotate.mutate(e.id)} disabled={rotate.isPending}>
                      Rotate secret
                    </Button>
                    <Button size="sm" variant="ghost" onClick={() => toggle.mutate(e)} disabled={toggle.isPending}>
                      {e.enabled ? "Disable" : "Enable"}
                    </Button>
                  </div>
                </div>
              </li>
            ))}
          </ul>
        )}
      </Card>

      {selected && rows.some((e) => e.id === selected) ? (
        <DeliveryLog key={selected} endpoint={rows.find((e) => e.id === selected)!} />
      ) : null}
    </>
  );
}

/** A datetime-local input's value (the browser's time zone, to the minute) for an instant. */
function localInput(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** An endpoint's deliveries, 20 a page (lib/webhooks: deliveryPage); `cursors` is the way back to the newer pages. */
function DeliveryLog({ endpoint }: { endpoint: EndpointView }) {
  const qc = useQueryClient();
  const [cursors, setCursors] = useState<string[]>([]);
  const older = cursors.at(-1) ?? "";
  const log = useQuery({
    queryKey: queryKeys.webhookDeliveries(endpoint.id, older),
    queryFn: ({ signal }) => fetchRead("webhook-deliveries", { endpoint: endpoint.id, older }, signal),
    placeholderData: keepPreviousData,
    refetchInterval: 2_000,
  });
  const rows: DeliveryView[] = log.data?.items ?? [];
  const next = log.data?.older ?? null;
  const refreshLog = () => qc.invalidateQueries({ queryKey: queryKeys.webhookDeliveries(endpoint.id) });

  // Resend one delivery (lib/webhooks/redeliver.ts): the same event, webhook-id and body again.
  const resend = useMutation({
    mutationFn: (deliveryId: number) => callAction(redeliverWebhookAction(deliveryId)),
    onSuccess: () => void refreshLog(),
  });
  // Resend the failed deliveries of a time range (the browser's time zone), at most 1,000 a click.
  const [from, setFrom] = useState(() => localInput(new Date(Date.now() - 24 * 3600 * 1000)));
  const [to, setTo] = useState(() => localInput(new Date(Date.now() + 60 * 1000)));
  const fromId = useId();
  const toId = useId();
  const resendFailed = useMutation({
    mutationFn: () =>
      callAction(redeliverFailedWebhooksAction(endpoint.id, { from: new Date(from).toISOString(), to: new Date(to).toISOString() })),
    onSuccess: () => void refreshLog(),
  });
  const validRange = from !== "" && to !== "" && !Number.isNaN(Date.parse(from)) && !Number.isNaN(Date.parse(to));
  return (
    <Card aria-labelledby="delivery-log-title">
      <CardHeader id="delivery-log-title" title="Delivery log" description={`The newest deliveries to ${endpoint.url}`} />
      {log.isError ? (
        <div className="px-4 py-3">
          <Alert>Could not load the log: {log.error.message}</Alert>
        </div>
      ) : null}
      <form
        aria-label="Resend failed deliveries"
        data-testid="webhook-resend-failed"
        className="flex flex-wrap items-end gap-3 border-b border-zinc-100 px-4 py-3 text-sm sm:px-5"
        onSubmit={(e) => {
          e.preventDefault();
          if (validRange) resendFailed.mutate();
        }}
      >
        <p className="w-full font-medium text-zinc-700">Resend failed…</p>
        <div>
          <label htmlFor={fromId} className="block text-xs text-zinc-600">
            Created from
          </label>
          <input
            id={fromId}
            type="datetime-local"
            value={from}
            onChange={(e) => setFrom(e.target.value)}
            required
            className="mt-1 rounded-md border border-zinc-300 px-2 py-1.5"
          />
        </div>
        <div>
          <label htmlFor={toId} className="block text-xs text-zinc-600">
            until (not included)
          </label>
          <input
            id={toId}
            type="datetime-local"
            value={to}
            onChange={(e) => setTo(e.target.value)}
            required
            className="mt-1 rounded-md border border-zinc-300 px-2 py-1.5"
          />
        </div>
        <Button type="submit" size="sm" variant="secondary" disabled={!endpoint.enabled || !validRange || resendFailed.isPending}>
          {resendFailed.isPending ? "Resending…" : "Resend failed deliveries"}
        </Button>
        <p className="w-full text-xs text-zinc-500" aria-live="polite" data-testid="webhook-resend-failed-result">
          {!endpoint.enabled
            ? "Enable the endpoint to resend its deliveries."
            : resendFailed.data
              ? `${resendFailed.data.queued} failed ${resendFailed.data.queued === 1 ? "delivery" : "deliveries"} queued again.${
                  resendFailed.data.more ? " More are left in the range: resend again for the next 1,000." : ""
                }`
              : "Each failed delivery of the range is sent again, oldest first, at most 1,000 a click; the receiver sees the same webhook-id."}
        </p>
      </form>
      {resendFailed.isError || resend.isError ? (
        <div className="px-4 py-3">
          <Alert>{(resendFailed.error ?? resend.error)?.message}</Alert>
        </div>
      ) : null}
      {rows.length === 0 ? (
        <EmptyState title="Nothing delivered yet">Send a test event, or create an order with one of your API keys.</EmptyState>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm">
            <thead className="bg-zinc-50 text-xs text-zinc-500 uppercase">
              <tr>
                <th className="px-4 py-2">Event</th>
                <th className="px-4 py-2">Status</th>
                <th className="px-4 py-2">Attempts</th>
                <th className="px-4 py-2">Last answer</th>
                <th className="px-4 py-2">Latency</th>
                <th className="px-4 py-2">Next retry</th>
                <th className="px-4 py-2">Created</th>
                <th className="px-4 py-2">
                  <span className="sr-only">Resend</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100">
              {rows.map((d) => (
                <tr key={d.id} data-testid="webhook-delivery" data-status={d.status} data-type={d.type}>
                  <td className="px-4 py-2">
                    <code className="font-mono text-[0.85em]">{d.type}</code>
                    {d.subject ? <span className="block font-mono text-xs text-zinc-500">{d.subject}</span> : null}
                  </td>
                  <td className="px-4 py-2">{d.status}</td>
                  <td className="px-4 py-2" title={d.log.map((a) => `${a.at}: ${a.statusCode ?? a.error} (${a.latencyMs} ms)`).join("\n")}>
                    {d.attempts}
                    {/* After a resend `attempts` counts from 0 again (the retry schedule's place); the log keeps every attempt. */}
                    {d.log.length > d.attempts ? <span className="block text-xs text-zinc-500">{d.log.length} in all</span> : null}
                  </td>
                  <td className="px-4 py-2">{d.lastStatusCode ?? d.lastError ?? "–"}</td>
                  <td className="px-4 py-2">{d.lastLatencyMs === null ? "–" : `${d.lastLatencyMs} ms`}</td>
                  <td className="px-4 py-2">{d.nextAttemptAt ? formatDateTime(d.nextAttemptAt) : "–"}</td>
                  <td className="px-4 py-2">{formatDateTime(d.createdAt)}</td>
                  <td className="px-4 py-2">
                    <Button
                      size="sm"
                      variant="ghost"
                      data-testid="webhook-resend"
                      aria-label={`Resend ${d.type} ${d.messageId}`}
                      onClick={() => resend.mutate(d.id)}
                      disabled={!endpoint.enabled || d.status === "pending" || (resend.isPending && resend.variables === d.id)}
                      title={d.status === "pending" ? "Already queued" : "Send the same event again (same webhook-id)"}
                    >
                      Resend
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next || cursors.length ? (
        <nav
          aria-label="Pages of the delivery log"
          className="flex flex-wrap items-center justify-between gap-2 border-t border-zinc-100 px-4 py-3 text-sm sm:px-5"
        >
          <p className="text-zinc-600" aria-live="polite">
            Page {cursors.length + 1}
          </p>
          <div className="flex gap-2">
            <Button variant="secondary" size="sm" disabled={!cursors.length} onClick={() => setCursors([])}>
              Newest
            </Button>
            <Button variant="secondary" size="sm" disabled={!cursors.length} onClick={() => setCursors(cursors.slice(0, -1))}>
              Newer
            </Button>
            <Button variant="secondary" size="sm" disabled={!next} onClick={() => next && setCursors([...cursors, next])}>
              Older
            </Button>
          </div>
        </nav>
      ) : null}
    </Card>
  );
}
