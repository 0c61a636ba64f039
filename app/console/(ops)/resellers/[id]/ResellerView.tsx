"use client";

import { AuditRows } from "@/components/console/AuditRows";
import { useConsoleAction, useConsoleQuery } from "@/components/console/api";
import { useCan } from "@/components/console/me";
import { ActionForm, AnyKV, AnyTable, Badge, Loading, Panel, pick, Title } from "@/components/console/ui";

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
  const lists = Object.entries(q.data).filter(([k, v]) => Array.isArray(v) && k !== "audit") as [string, unknown[]][];
  const audit = pick(q.data, "audit");

  return (
    <div>
      <Title>
        Reseller <span className="font-mono">{id}</span>{" "}
        {suspended ? <Badge tone="rose">suspended</Badge> : <Badge tone="emerald">active</Badge>}
      </Title>
      <div className="grid gap-x-4 lg:grid-cols-2">
        <Panel title="Reseller">
          <AnyKV value={r} testId="reseller-summary" />
          {r !== q.data ? (
            <AnyKV value={Object.fromEntries(Object.entries(q.data).filter(([k, v]) => k !== "reseller" && !Array.isArray(v)))} />
          ) : null}
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
                title="Markup cap (basis points; empty in the API: the platform's cap)"
                testId="markup-cap-form"
                fields={[
                  { name: "capBps", label: "Cap (bps)", required: true, placeholder: "300" },
                  { name: "reason", label: "Reason", required: true },
                ]}
                submit="Set cap"
                done="Saved."
                onSubmit={(v) => run("markup-cap")({ ...v, capBps: /^\d+$/.test(v.capBps ?? "") ? Number(v.capBps) : v.capBps })}
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
      {lists.map(([k, rows]) => (
        <Panel key={k} title={k}>
          <AnyTable rows={rows} first={["at", "createdAt", "id"]} />
        </Panel>
      ))}
      {Array.isArray(audit) ? (
        <Panel title="Actions and notes on the record">
          <AuditRows rows={audit} />
        </Panel>
      ) : null}
    </div>
  );
}
