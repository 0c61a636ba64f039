"use client";

import { useConsoleAction, useConsoleQuery } from "@/components/console/api";
import { useCan } from "@/components/console/me";
import { AnyKV, AnyTable, Btn, ErrorLine, Json, Loading, Panel, Title } from "@/components/console/ui";

// The treasury (GET /api/console/treasury): the hot wallet's balances per chain and asset, the
// last reconciliation and its differences; a finance operator runs a reconciliation now
// (POST /api/console/treasury/reconcile).

export function TreasuryView() {
  const q = useConsoleQuery<Record<string, unknown>>("/treasury", { refetchInterval: 30_000 });
  const can = useCan();
  const reconcile = useConsoleAction<void>({ path: () => "/treasury/reconcile", body: () => ({}), refresh: ["/treasury"] });
  const entries = Object.entries(q.data ?? {});
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
          <Panel title="Summary">
            <AnyKV value={Object.fromEntries(entries.filter(([, v]) => !v || typeof v !== "object"))} testId="treasury-summary" />
          </Panel>
          {entries
            .filter(([, v]) => v && typeof v === "object")
            .map(([k, v]) => (
              <Panel key={k} title={k}>
                {Array.isArray(v) ? (
                  <AnyTable rows={v} first={["chainId", "chain", "asset", "balance", "amount", "at"]} />
                ) : Object.values(v as object).some((x) => Array.isArray(x)) ? (
                  <Json value={v} />
                ) : (
                  <AnyKV value={v} />
                )}
              </Panel>
            ))}
        </>
      ) : null}
    </div>
  );
}
