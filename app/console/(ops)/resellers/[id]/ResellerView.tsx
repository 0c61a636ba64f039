"use client";

import { AuditRows } from "@/components/console/AuditRows";
import { useConsoleAction, useConsoleQuery } from "@/components/console/api";
import { useCan } from "@/components/console/me";
import {
  A,
  ActionForm,
  AnyKV,
  AnyTable,
  amount,
  Badge,
  Loading,
  Panel,
  pick,
  show,
  statusTone,
  Table,
  Title,
  when,
} from "@/components/console/ui";

// One reseller (GET /api/console/resellers/:id): its figures, notes and the actions on it;
// suspend and restore (its keys then answer 403, its pages say the service is unavailable),
// a markup cap, a note (POST /api/console/resellers/:id/...).

export function ResellerView({ id }: { id: string }) {
  const path = `/resellers/${encodeURIComponent(id)}`;
  const q = useConsoleQuery<Record<string, unknown>>(path);
  const can = useCan();
  const act = useConsoleAction<{ action: string; body: Record<string, unknown> }>({
    path: (v) => `${path}/${v.action}`,
    body: (v) => v.body,
    refresh: [path, "/resellers"],
  });
  const run = (action: string) => (body: Record<string, unknown>) => act.mutateAsync({ action, body });
  if (!q.data) return <Loading q={q} />;
  const r = (pick(q.data, "reseller") ?? q.data) as Record<string, unknown>;
  const suspended = Boolean(pick(r, "suspendedAt"));
  const arr = (k: string) => (Array.isArray(r[k]) ? (r[k] as Record<string, unknown>[]) : []);
  const scalars = Object.fromEntries(Object.entries(r).filter(([, v]) => v === null || typeof v !== "object"));

  return (
    <div>
      <Title>
        Reseller <span className="font-mono">{id}</span>{" "}
        {suspended ? <Badge tone="rose">suspended</Badge> : <Badge tone="emerald">active</Badge>}
      </Title>
      <div className="grid gap-x-4 lg:grid-cols-2">
        <Panel title="Reseller">
          <AnyKV value={scalars} testId="reseller-summary" />
        </Panel>
        <Panel title="Actions">
          <div className="divide-y divide-zinc-100">
            {can("resellers.suspend") ? (
              suspended ? (
                <ActionForm
                  title="Restore: its keys and pages work again"
                  testId="restore-form"
                  fields={[{ name: "reason", label: "Reason", required: true }]}
                  submit="Restore"
                  done="Restored."
                  onSubmit={run("restore")}
                />
              ) : (
                <ActionForm
                  title="Suspend: its keys answer 403, its pages say the service is unavailable, withdrawals wait; open orders finish"
                  testId="suspend-form"
                  tone="danger"
                  fields={[{ name: "reason", label: "Reason", required: true }]}
                  submit="Suspend"
                  done="Suspended."
                  onSubmit={run("suspend")}
                />
              )
            ) : null}
            {can("resellers.markup_cap") ? (
              <ActionForm
                title="Markup cap in basis points (empty: no cap of its own, the platform's MARKUP_CAP_BPS)"
                testId="markup-cap-form"
                fields={[
                  { name: "capBps", label: "Cap (bps)", placeholder: "300" },
                  { name: "reason", label: "Reason", required: true },
                ]}
                submit="Set cap"
                done="Saved."
                onSubmit={(v) => run("markup-cap")({ reason: v.reason, capBps: v.capBps ?? null })}
              />
            ) : null}
            {can("resellers.note") ? (
              <ActionForm
                title="Add a note"
                testId="reseller-note-form"
                fields={[{ name: "text", label: "Note", type: "textarea", required: true }]}
                submit="Add note"
                done="Noted."
                onSubmit={run("notes")}
              />
            ) : null}
            {!can("resellers.suspend") && !can("resellers.markup_cap") && !can("resellers.note") ? (
              <p className="px-2 py-2 text-xs text-zinc-500">Your role can take no action on a reseller.</p>
            ) : null}
          </div>
        </Panel>
      </div>
      <div className="grid gap-x-4 lg:grid-cols-2">
        <Panel title="Balances">
          <AnyTable rows={arr("balances")} first={["currency", "available", "pending", "reserved"]} />
        </Panel>
        <Panel title={`Finished volume and profit (${show(pick(r, "figures.finished"))} of ${show(pick(r, "figures.orders"))} orders)`}>
          <AnyTable rows={(pick(r, "figures.byCurrency") as unknown[]) ?? []} first={["currency", "volume", "profit"]} />
        </Panel>
      </div>
      <Panel title="Recent orders">
        <Table
          head={["Order", "State", "Reason", "From", "To", "Profit", "Provider", "Channel", "Created"]}
          empty={!arr("recentOrders").length}
        >
          {arr("recentOrders").map((o) => (
            <tr key={String(o.id)}>
              <td className="font-mono">
                <A href={`/console/orders/${encodeURIComponent(String(o.id))}`}>{String(o.id)}</A>
              </td>
              <td>
                <Badge tone={statusTone(String(o.status))}>{show(o.status)}</Badge>
              </td>
              <td>{show(o.stateReason ?? o.failureReason)}</td>
              <td className="font-mono whitespace-nowrap">{amount(o.fromAmount, o.fromCurrency)}</td>
              <td className="font-mono whitespace-nowrap">{amount(o.toAmount, o.toCurrency)}</td>
              <td className="font-mono">{amount(o.profit, o.toCurrency)}</td>
              <td>{show(o.provider)}</td>
              <td>{show(o.channel)}</td>
              <td className="font-mono whitespace-nowrap">{when(o.createdAt)}</td>
            </tr>
          ))}
        </Table>
      </Panel>
      <Panel title="API keys">
        <AnyTable rows={arr("keys")} first={["name", "prefix", "createdAt", "lastUsedAt", "revokedAt", "markupBps"]} />
      </Panel>
      <Panel title="Widgets">
        <AnyTable rows={arr("widgets")} first={["id", "name", "markupBps"]} />
      </Panel>
      <Panel title="Actions and notes on the record">
        <AuditRows rows={arr("audit")} testId="reseller-audit" />
        {pick(r, "auditNext") ? (
          <p className="px-2 py-1 text-xs">
            <A href={`/console/audit?targetType=reseller&targetId=${encodeURIComponent(id)}`}>Older entries in the audit log</A>
          </p>
        ) : null}
      </Panel>
    </div>
  );
}
