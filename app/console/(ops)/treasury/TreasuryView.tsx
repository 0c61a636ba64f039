"use client";

import { useConsoleAction, useConsoleQuery } from "@/components/console/api";
import { useCan } from "@/components/console/me";
import { AnyTable, Badge, Btn, ErrorLine, KV, Loading, Panel, show, Title, when } from "@/components/console/ui";

// The treasury (GET /api/console/treasury): for each payout chain, the hot wallet's balance of
// each payout asset against its low-balance threshold, and the last reconciliation and its
// differences; a finance operator runs a reconciliation now (POST /api/console/treasury/reconcile).

interface Chain {
  chainId: number;
  sender?: string;
  address?: string | null;
  assets?: Record<string, unknown>[];
  error?: string | null;
}

interface Treasury {
  chains?: Chain[];
  lastReconciliation?: {
    at?: string;
    actor?: string;
    report?: { lines?: Record<string, unknown>[]; differencesByCheck?: Record<string, number> };
  } | null;
}

export function TreasuryView() {
  const q = useConsoleQuery<Treasury>("/treasury", { refetchInterval: 30_000 });
  const can = useCan();
  const reconcile = useConsoleAction<void>({ path: () => "/treasury/reconcile", body: () => ({}), refresh: ["/treasury"] });
  const last = q.data?.lastReconciliation;
  const diffs = Object.entries(last?.report?.differencesByCheck ?? {});
  return (
    <div>
      <Title
        actions={
          can("treasury.reconcile") ? (
            <Btn onClick={() => reconcile.mutate()} disabled={reconcile.isPending}>
              {reconcile.isPending ? "Reconciling…" : "Reconcile now"}
            </Btn>
          ) : null
        }
      >
        Treasury
      </Title>
      <ErrorLine error={reconcile.error} />
      <Loading q={q} />
      {q.data ? (
        <>
          {(q.data.chains ?? []).map((c) => (
            <Panel key={c.chainId} title={`Hot wallet, chain ${c.chainId}`} testId="treasury-chain">
              <KV
                rows={[
                  ["Sender", show(c.sender)],
                  ["Address", show(c.address)],
                  ...(c.error
                    ? ([
                        [
                          "Error",
                          <span key="e" className="text-rose-700">
                            {c.error}
                          </span>,
                        ],
                      ] as [string, React.ReactNode][])
                    : []),
                ]}
              />
              <AnyTable rows={c.assets ?? []} first={["asset", "ticker", "balance", "threshold", "low"]} />
            </Panel>
          ))}
          {!(q.data.chains ?? []).length ? <p className="mb-3 text-xs text-zinc-500">No payout chain is configured.</p> : null}
          <Panel title="Last reconciliation" testId="treasury-reconciliation">
            {last ? (
              <>
                <KV
                  rows={[
                    ["When", when(last.at)],
                    ["By", show(last.actor)],
                    [
                      "Differences",
                      diffs.length ? (
                        <span key="d" className="flex flex-wrap gap-1">
                          {diffs.map(([k, n]) => (
                            <Badge key={k} tone={n ? "rose" : "emerald"}>
                              {k}: {n}
                            </Badge>
                          ))}
                        </span>
                      ) : (
                        "none"
                      ),
                    ],
                  ]}
                />
                <AnyTable rows={last.report?.lines ?? []} first={["check", "name", "books", "actual"]} />
              </>
            ) : (
              <p className="px-2 py-2 text-xs text-zinc-500">None recorded yet.</p>
            )}
          </Panel>
        </>
      ) : null}
    </div>
  );
}
