"use client";

import { useConsoleAction, useConsoleQuery } from "@/components/console/api";
import { useCan, useMe } from "@/components/console/me";
import { ActionForm, Badge, ErrorLine, Loading, Panel, show, Table, Title, when } from "@/components/console/ui";

// The console's operators (GET /api/console/operators): a wallet and a role each. Admins add
// one (or give an operator another role) and remove one with a reason; both go in the audit log.

interface OperatorView {
  id: string;
  wallet: string;
  role: string;
  addedBy?: string | null;
  createdAt?: string;
  removedAt?: string | null;
}

const ROLES = [
  { value: "support", label: "support: orders and resellers" },
  { value: "finance", label: "finance: withdrawals, treasury" },
  { value: "viewer", label: "viewer: reads only" },
  { value: "admin", label: "admin: everything" },
];

export function OperatorsView() {
  const q = useConsoleQuery<{ operators: OperatorView[] }>("/operators");
  const can = useCan();
  const me = useMe();
  const add = useConsoleAction<Record<string, string>>({ path: () => "/operators", refresh: ["/operators"] });
  const remove = useConsoleAction<{ id: string; reason: string }>({
    path: (v) => `/operators/${encodeURIComponent(v.id)}/remove`,
    body: (v) => ({ reason: v.reason }),
    refresh: ["/operators"],
  });
  const admin = can("operators.manage");
  const ops = q.data?.operators ?? [];

  return (
    <div>
      <Title>Operators</Title>
      {admin ? (
        <Panel title="Add an operator, or change one's role">
          <ActionForm
            testId="add-operator"
            fields={[
              { name: "wallet", label: "Wallet address", required: true, placeholder: "0x…" },
              { name: "role", label: "Role", type: "select", required: true, options: ROLES },
            ]}
            submit="Add operator"
            done="Saved. The operator signs in with that wallet at /console/signin."
            onSubmit={(v) => add.mutateAsync(v)}
          />
        </Panel>
      ) : (
        <p className="mb-2 text-xs text-zinc-600">Only an admin adds and removes operators.</p>
      )}
      <Panel title={`Operators (${ops.length})`}>
        <Loading q={q} />
        {remove.isError ? <ErrorLine error={remove.error} /> : null}
        {q.data ? (
          <Table head={["Wallet", "Role", "Added", "Added by", ...(admin ? [""] : [])]} empty={!ops.length} testId="operators">
            {ops.map((o) => (
              <tr key={o.id} data-testid="operator-row" data-wallet={o.wallet.toLowerCase()}>
                <td className="font-mono">
                  {o.wallet} {o.id === me.operator.id ? <Badge tone="sky">you</Badge> : null}
                </td>
                <td>
                  <Badge tone={o.role === "admin" ? "amber" : "zinc"}>{o.role}</Badge>
                </td>
                <td className="font-mono whitespace-nowrap">{when(o.createdAt)}</td>
                <td className="font-mono">{show(o.addedBy)}</td>
                {admin ? (
                  <td>
                    {o.id === me.operator.id ? null : (
                      <form
                        className="flex gap-1"
                        aria-label={`Remove ${o.wallet}`}
                        onSubmit={(e) => {
                          e.preventDefault();
                          const reason = String(new FormData(e.currentTarget).get("reason") ?? "").trim();
                          remove.mutate({ id: o.id, reason });
                        }}
                      >
                        <input
                          name="reason"
                          required
                          placeholder="reason"
                          aria-label="Reason"
                          className="w-40 rounded border border-zinc-300 px-1 py-0.5"
                        />
                        <button
                          type="submit"
                          className="rounded bg-rose-700 px-2 py-0.5 text-white hover:bg-rose-600"
                          disabled={remove.isPending}
                        >
                          Remove
                        </button>
                      </form>
                    )}
                  </td>
                ) : null}
              </tr>
            ))}
          </Table>
        ) : null}
      </Panel>
    </div>
  );
}
