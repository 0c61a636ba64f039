"use client";

import { useConsoleAction, useConsoleQuery } from "@/components/console/api";
import { useCan } from "@/components/console/me";
import { A, ActionForm, Badge, Loading, Mono, Panel, ref, statusTone, Table, Title, waited, when } from "@/components/console/ui";

// The console's home: what needs a person, oldest first, with how long each has waited
// (GET /api/console/queue). Refreshed every 15 seconds.

export interface QueueItem {
  kind: string;
  targetType: string;
  targetId: string;
  since?: string | null;
  waitingSeconds?: number | null;
  summary?: string | null;
  reseller?: { id: string; wallet: string } | string | null;
  provider?: string | null;
  status?: string | null;
  reason?: string | null;
}

export function targetHref(type: string | null | undefined, id: string | null | undefined): string | null {
  if (!type || !id) return null;
  if (type === "order") return `/console/orders/${encodeURIComponent(id)}`;
  if (type === "reseller") return `/console/resellers/${encodeURIComponent(id)}`;
  if (type === "withdrawal") return `/console/withdrawals?id=${encodeURIComponent(id)}`;
  if (type === "treasury" || type === "wallet" || type === "reconciliation") return "/console/treasury";
  return null;
}

const seconds = (i: QueueItem) =>
  typeof i.waitingSeconds === "number" ? i.waitingSeconds : i.since ? (Date.now() - Date.parse(i.since)) / 1000 : 0;

export function QueueView() {
  const q = useConsoleQuery<{ items?: QueueItem[]; counts?: Record<string, number> }>("/queue", { refetchInterval: 15_000 });
  const can = useCan();
  const items = [...(q.data?.items ?? [])].sort((a, b) => seconds(b) - seconds(a));
  const counts = Object.entries(q.data?.counts ?? {});
  return (
    <div>
      <Title>Queue</Title>
      <p className="mb-2 text-xs text-zinc-600">
        What needs a person, oldest first. Open an item to act on it; every action is in the audit log.
      </p>
      {counts.length ? (
        <ul className="mb-2 flex flex-wrap gap-1" data-testid="queue-counts">
          {counts.map(([k, n]) => (
            <li key={k}>
              <Badge tone={n ? "amber" : "zinc"}>
                {k.replaceAll("_", " ")}: {n}
              </Badge>
            </li>
          ))}
        </ul>
      ) : null}
      <Panel title={`Waiting (${items.length})`}>
        <Loading q={q} />
        {q.data ? (
          <Table
            head={["Waited", "Kind", "What", "Status", "Reason", "Provider", "Reseller", "Since", "Summary"]}
            empty={!items.length}
            testId="queue"
          >
            {items.map((i) => {
              const href = targetHref(i.targetType, i.targetId);
              return (
                <tr key={`${i.kind}:${i.targetType}:${i.targetId}`} data-testid="queue-item" data-target={i.targetId}>
                  <td className="font-mono whitespace-nowrap">{waited(seconds(i))}</td>
                  <td>
                    <Badge tone="amber">{i.kind.replaceAll("_", " ")}</Badge>
                  </td>
                  <td className="whitespace-nowrap">
                    {i.targetType} {href ? <A href={href}>{i.targetId}</A> : <Mono>{i.targetId}</Mono>}
                  </td>
                  <td>{i.status ? <Badge tone={statusTone(i.status)}>{i.status}</Badge> : "—"}</td>
                  <td>{i.reason ? <Badge tone={statusTone(i.reason)}>{i.reason}</Badge> : "—"}</td>
                  <td>{i.provider ?? "—"}</td>
                  <td className="font-mono">
                    <ResellerLink value={i.reseller} />
                  </td>
                  <td className="font-mono whitespace-nowrap">{when(i.since)}</td>
                  <td className="text-zinc-700">
                    {i.summary ?? ""}
                    {i.kind === "upstream_orphan" && can("orders.resolve") ? <DismissOrphan id={i.targetId} /> : null}
                  </td>
                </tr>
              );
            })}
          </Table>
        ) : null}
      </Panel>
    </div>
  );
}

/** An orphan upstream exchange handled outside (looked up at the provider): out of the queue, with a reason on the record. */
function DismissOrphan({ id }: { id: string }) {
  const dismiss = useConsoleAction<{ reason: string }>({
    path: () => `/upstream/${encodeURIComponent(id)}/dismiss`,
    body: (v) => ({ reason: v.reason }),
    refresh: ["/queue"],
  });
  return (
    <ActionForm
      testId="dismiss-orphan"
      fields={[{ name: "reason", label: "Handled how", required: true }]}
      submit="Dismiss"
      onSubmit={(v) => dismiss.mutateAsync({ reason: v.reason ?? "" })}
    />
  );
}

function ResellerLink({ value }: { value: unknown }) {
  const [id, label] = ref(value);
  if (!id) return <>{label}</>;
  return (
    <A href={`/console/resellers/${encodeURIComponent(id)}`}>{label.length > 14 ? `${label.slice(0, 6)}…${label.slice(-4)}` : label}</A>
  );
}
