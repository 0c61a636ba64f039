"use client";

import { AuditRows } from "@/components/console/AuditRows";
import { useConsoleAction, useConsoleQuery } from "@/components/console/api";
import { useCan } from "@/components/console/me";
import {
  A,
  ActionForm,
  AnyTable,
  amount,
  Badge,
  Btn,
  ErrorLine,
  KV,
  Loading,
  Panel,
  pick,
  ref,
  show,
  statusTone,
  Title,
  when,
} from "@/components/console/ui";

// One order (GET /api/console/orders/:id): our history, the provider's raw statuses as
// received, the journals, every note and action; and the actions the operator's role and the
// order's state allow (POST /api/console/orders/:id/...). Each write refreshes the page.

interface Detail {
  order: Record<string, unknown>;
  events?: unknown[];
  upstreamStatuses?: unknown[];
  journals?: unknown[];
  audit?: unknown[];
  notes?: unknown[];
  reseller?: unknown;
  /** The actions the order's state allows now (also as order.actions). */
  allowed?: unknown;
}

/** Whether the order's state allows `action` (the answer's `allowed`: a list, or a map of flags; absent: the server decides). */
function allows(allowed: unknown, ...names: string[]): boolean {
  if (allowed === undefined || allowed === null) return true;
  if (Array.isArray(allowed)) return names.some((n) => allowed.includes(n));
  if (typeof allowed === "object") {
    const m = allowed as Record<string, unknown>;
    const known = names.filter((n) => n in m);
    return known.length === 0 ? true : known.some((n) => m[n] === true || (m[n] && typeof m[n] === "object"));
  }
  return true;
}

/** What each action did, for the line above the forms (a form may vanish once its action is no longer allowed). */
const DONE: Record<string, string> = {
  sync: "synced with the provider",
  "refund-address": "refund address sent",
  choice: "choice sent",
  resolve: "resolved by hand",
  notes: "note added",
};

export function OrderView({ id }: { id: string }) {
  const path = `/orders/${encodeURIComponent(id)}`;
  const q = useConsoleQuery<Detail>(path, { refetchInterval: 10_000 });
  const can = useCan();
  const act = useConsoleAction<{ action: string; body: Record<string, unknown> }>({
    path: (v) => `${path}/${v.action}`,
    body: (v) => v.body,
    refresh: [path, "/orders"],
  });
  const run = (action: string) => (body: Record<string, unknown>) => act.mutateAsync({ action, body });

  if (!q.data) return <Loading q={q} />;
  const o = q.data.order ?? {};
  const allowed = q.data.allowed ?? o.actions;
  const status = show(pick(o, "status"));
  const reason = pick(o, "stateReason", "reason");
  const [rid, rlabel] = ref(q.data.reseller ?? pick(o, "reseller", "resellerWallet", "resellerId"));
  const allowedText = Array.isArray(allowed)
    ? allowed.join(", ")
    : allowed && typeof allowed === "object"
      ? Object.entries(allowed as Record<string, unknown>)
          .filter(([, v]) => v)
          .map(([k]) => k)
          .join(", ")
      : null;

  return (
    <div>
      <Title
        actions={
          can("orders.sync") && allows(allowed, "sync") ? (
            <Btn tone="secondary" disabled={act.isPending} onClick={() => act.mutate({ action: "sync", body: {} })}>
              Sync now
            </Btn>
          ) : null
        }
      >
        Order <span className="font-mono">{id}</span> <Badge tone={statusTone(status)}>{status}</Badge>{" "}
        {reason ? <Badge tone={statusTone(String(reason))}>{String(reason)}</Badge> : null}
      </Title>
      {act.isError && act.variables?.action === "sync" ? <ErrorLine error={act.error} /> : null}
      <div className="grid gap-x-4 lg:grid-cols-2">
        <Panel title="Order" testId="order-summary">
          <KV
            rows={[
              [
                "State",
                <span key="s" data-testid="order-status">
                  {status}
                </span>,
              ],
              ["Reason", show(reason)],
              ["Failure", show(pick(o, "failureReason"))],
              ["Refund state", show(pick(o, "refundState"))],
              ["User is asked to", show(pick(o, "requiredAction"))],
              ["Provider's last status", show(pick(o, "upstreamStatus"))],
              ["Provider", show(pick(o, "provider"))],
              ["Provider's id", show(pick(o, "providerOrderId", "upstreamId", "providerId"))],
              ["From", amount(pick(o, "fromAmount", "from.amount"), pick(o, "fromCurrency", "from.ticker"))],
              ["To", amount(pick(o, "toAmount", "to.amount"), pick(o, "toCurrency", "to.ticker"))],
              ["Pay-in address", show(pick(o, "payinAddress"))],
              ["Payout address", show(pick(o, "payoutAddress", "address"))],
              ["Refund address", show(pick(o, "refundAddress"))],
              ["Refund extra id", show(pick(o, "refundExtraId"))],
              ["Pay-in hash", show(pick(o, "payinHash", "payinTxHash"))],
              ["Payout hash", show(pick(o, "payoutHash", "payoutTxHash"))],
              [
                "Refund hash",
                <span key="r" data-testid="refund-hash">
                  {show(pick(o, "refundHash", "refundTxHash"))}
                </span>,
              ],
              [
                "Reseller",
                rid ? (
                  <A key="r" href={`/console/resellers/${encodeURIComponent(rid)}`}>
                    {rlabel}
                  </A>
                ) : (
                  rlabel
                ),
              ],
              ["Channel", show(pick(o, "channel.type", "channel"))],
              ["Created", when(pick(o, "createdAt"))],
              ["Updated", when(pick(o, "updatedAt"))],
              ["Actions allowed now", allowedText ?? "—"],
            ]}
          />
        </Panel>
        <Panel title="Actions">
          {act.isSuccess && act.variables ? (
            <p
              role="status"
              data-testid="order-action-done"
              className="border-b border-emerald-100 bg-emerald-50 px-2 py-1 text-xs text-emerald-800"
            >
              Done: {DONE[act.variables.action] ?? act.variables.action}. The order below is as it is now.
            </p>
          ) : null}
          <OrderActions id={id} allowed={allowed} run={run} />
        </Panel>
      </div>
      <Panel title="Our history">
        <AnyTable rows={q.data.events ?? []} first={["at", "createdAt", "status", "stateReason", "note"]} testId="order-events" />
      </Panel>
      <Panel title="Provider's statuses, as received">
        <AnyTable rows={q.data.upstreamStatuses ?? []} first={["at", "receivedAt", "status", "mapped", "raw"]} testId="upstream-statuses" />
      </Panel>
      <Panel title="Journals">
        <AnyTable rows={q.data.journals ?? []} first={["id", "at", "createdAt", "kind", "memo", "entries"]} testId="journals" />
      </Panel>
      {q.data.notes ? (
        <Panel title="Notes">
          <AnyTable rows={q.data.notes} first={["at", "actor", "text"]} />
        </Panel>
      ) : null}
      <Panel title="Actions and notes on the record">
        <AuditRows rows={q.data.audit ?? []} testId="order-audit" />
      </Panel>
    </div>
  );
}

function OrderActions({
  allowed,
  run,
}: {
  id: string;
  allowed: unknown;
  run: (action: string) => (body: Record<string, unknown>) => Promise<unknown>;
}) {
  const can = useCan();
  const forms = [
    can("orders.refund_address") && allows(allowed, "refund_address") ? (
      <ActionForm
        key="refund"
        title="Send a refund address upstream"
        testId="refund-address-form"
        fields={[
          { name: "address", label: "Refund address", required: true },
          { name: "extraId", label: "Memo / extra id (if the chain needs one)" },
          { name: "reason", label: "Reason" },
        ]}
        submit="Send refund address"
        done="Sent. The provider's next status shows what it did with it."
        onSubmit={run("refund-address")}
      />
    ) : null,
    can("orders.choice") && allows(allowed, "choice") ? (
      <ActionForm
        key="choice"
        title="Answer the provider's choice (exchange at the new rate, or refund)"
        testId="choice-form"
        fields={[
          {
            name: "choice",
            label: "Choice",
            type: "select",
            required: true,
            options: [
              { value: "exchange", label: "exchange at the new rate" },
              { value: "refund", label: "refund" },
            ],
          },
          { name: "address", label: "Refund address (for a refund, if none yet)" },
          { name: "extraId", label: "Memo / extra id" },
          { name: "reason", label: "Reason" },
        ]}
        submit="Send choice"
        done="Sent."
        onSubmit={run("choice")}
      />
    ) : null,
    can("orders.resolve") && allows(allowed, "resolve") ? (
      <ActionForm
        key="resolve"
        title="Mark resolved by hand"
        testId="resolve-form"
        tone="danger"
        fields={[
          {
            name: "outcome",
            label: "Outcome",
            type: "select",
            required: true,
            options: [
              { value: "failed", label: "failed (reverses the pending profit)" },
              { value: "finished", label: "finished" },
            ],
          },
          { name: "hash", label: "Hash (payout's for finished: required; refund's for failed: if any)" },
          { name: "reason", label: "Reason (on the record)", required: true },
        ]}
        submit="Resolve"
        done="Resolved."
        onSubmit={({ hash, ...v }) => run("resolve")(hash ? { ...v, [v.outcome === "finished" ? "payoutHash" : "refundHash"]: hash } : v)}
      />
    ) : null,
    can("orders.note") ? (
      <ActionForm
        key="note"
        title="Add a note"
        testId="note-form"
        fields={[{ name: "text", label: "Note", type: "textarea", required: true }]}
        submit="Add note"
        done="Noted."
        onSubmit={run("notes")}
      />
    ) : null,
  ].filter(Boolean);
  if (!forms.length) return <p className="px-2 py-2 text-xs text-zinc-500">Your role can take no action on this order now.</p>;
  return <div className="divide-y divide-zinc-100">{forms}</div>;
}
