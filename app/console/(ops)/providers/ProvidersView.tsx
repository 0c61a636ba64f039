"use client";

import { useConsoleAction, useConsoleQuery } from "@/components/console/api";
import { useCan } from "@/components/console/me";
import { ActionForm, Badge, Loading, Mono, Panel, Table, Title, when } from "@/components/console/ui";

// The providers (GET /api/console/providers, lib/console/providers/provider-health.ts): per
// provider, whether it takes new orders (its setting, and an operator's switch over it), its
// calls' success rate and p95 over 30 days, its last errors, its share of holds and refunds, the
// commission it owes; an admin switches one off or on with a reason (applied on every instance
// within PROVIDER_SWITCH_SECONDS, kept across restarts).

interface Provider {
  name: string;
  label: string;
  configured: boolean;
  enabledBySetting: boolean;
  switched: { enabled: boolean; at: string; by: string | null } | null;
  enabled: boolean;
  calls: { total: number; failures: number; successRate: string | null; p95Ms: string | null; last24h: number };
  lastErrors: { at: string; call: string; message: string }[];
  orders: { total: number; held: number; refunded: number; heldShare: string | null; refundedShare: string | null };
  commissionReceivable: { currency: string; amount: string }[];
}

/** "0.9875" as "98.75%": the exact decimal shifted by two places, no float arithmetic. */
function percent(share: string | null): string {
  if (share === null) return "–";
  const [whole, frac = ""] = share.split(".");
  const digits = (whole === "0" ? "" : whole) + frac.padEnd(4, "0");
  const int = digits.slice(0, -2).replace(/^0+(?=\d)/, "") || "0";
  return `${int}.${digits.slice(-2)}%`;
}

export function ProvidersView() {
  const q = useConsoleQuery<{ providers: Provider[] }>("/providers", { refetchInterval: 30_000 });
  const can = useCan();
  const flip = useConsoleAction<{ name: string; enable: boolean; reason: string }>({
    path: (v) => `/providers/${v.name}/${v.enable ? "enable" : "disable"}`,
    body: (v) => ({ reason: v.reason }),
    refresh: ["/providers"],
  });
  return (
    <div>
      <Title>Providers</Title>
      <Loading q={q} />
      {q.data ? (
        <>
          <Panel title="Last 30 days" testId="providers-table">
            <Table head={["Provider", "New orders", "Calls", "Success", "p95", "Orders", "Held", "Refunded", "Commission owed"]}>
              {q.data.providers.map((p) => (
                <tr key={p.name} data-testid={`provider-${p.name}`}>
                  <td>{p.label}</td>
                  <td>
                    <Badge tone={p.enabled ? "emerald" : "zinc"}>{p.enabled ? "on" : "off"}</Badge>{" "}
                    <span className="text-zinc-500">
                      {!p.configured ? "no credentials" : p.switched ? `switched ${when(p.switched.at)}` : "by its setting"}
                    </span>
                  </td>
                  <td>
                    {p.calls.total} ({p.calls.last24h} today)
                  </td>
                  <td>{percent(p.calls.successRate)}</td>
                  <td>{p.calls.p95Ms ? `≤ ${p.calls.p95Ms} ms` : "–"}</td>
                  <td>{p.orders.total}</td>
                  <td>
                    {p.orders.held} ({percent(p.orders.heldShare)})
                  </td>
                  <td>
                    {p.orders.refunded} ({percent(p.orders.refundedShare)})
                  </td>
                  <td>{p.commissionReceivable.map((c) => `${c.amount} ${c.currency.toUpperCase()}`).join(", ") || "–"}</td>
                </tr>
              ))}
            </Table>
          </Panel>
          {q.data.providers.map((p) => (
            <Panel key={p.name} title={p.label} testId={`provider-panel-${p.name}`}>
              {p.lastErrors.length ? (
                <Table head={["When", "Call", "Error"]}>
                  {p.lastErrors.map((e) => (
                    <tr key={`${e.at}-${e.call}-${e.message}`}>
                      <td className="whitespace-nowrap">{when(e.at)}</td>
                      <td>
                        <Mono>{e.call}</Mono>
                      </td>
                      <td>{e.message}</td>
                    </tr>
                  ))}
                </Table>
              ) : (
                <p className="px-2 py-1 text-xs text-zinc-500">No failed call kept.</p>
              )}
              {can("providers.switch") && p.configured ? (
                <ActionForm
                  testId={`provider-switch-${p.name}`}
                  fields={[{ name: "reason", label: "Reason", required: true }]}
                  submit={p.enabled ? "Switch off" : "Switch on"}
                  tone={p.enabled ? "danger" : "primary"}
                  done={p.enabled ? "Switched on." : "Switched off."}
                  onSubmit={(v) => flip.mutateAsync({ name: p.name, enable: !p.enabled, reason: v.reason ?? "" })}
                />
              ) : null}
            </Panel>
          ))}
        </>
      ) : null}
    </div>
  );
}
