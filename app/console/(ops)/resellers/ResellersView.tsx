"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { qs, useConsoleList } from "@/components/console/api";
import { A, Badge, Btn, inputClass, Loading, More, Panel, pick, show, Table, Title, when } from "@/components/console/ui";

// Every reseller (GET /api/console/resellers): volume, profit and balances, whether suspended,
// its markup cap; search by wallet or id; keyset pages.

/** Balances as "1.2 USDC, 0.01 ETH" from a list, a map or a figure. */
export function balancesText(v: unknown): string {
  if (Array.isArray(v))
    return (
      v.map((b) => `${show(pick(b, "amount", "available", "balance"))} ${show(pick(b, "asset", "ticker", "currency"))}`).join(", ") || "—"
    );
  if (v && typeof v === "object")
    return (
      Object.entries(v as Record<string, unknown>)
        .map(([k, x]) => `${k}: ${show(x)}`)
        .join(", ") || "—"
    );
  return show(v);
}

export function ResellersView() {
  const sp = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const q = sp.get("q") ?? "";
  const list = useConsoleList<Record<string, unknown>>(`/resellers${qs({ q })}`, "resellers");
  return (
    <div>
      <Title>Resellers</Title>
      <form
        className="mb-3 flex items-end gap-2 text-xs"
        aria-label="Search resellers"
        onSubmit={(e) => {
          e.preventDefault();
          const v = String(new FormData(e.currentTarget).get("q") ?? "").trim();
          router.replace(`${pathname}${qs({ q: v })}`, { scroll: false });
        }}
      >
        <label className="flex w-96 flex-col gap-0.5 text-zinc-600">
          Search
          <input name="q" type="search" defaultValue={q} placeholder="wallet or reseller id" className={inputClass} />
        </label>
        <Btn type="submit">Search</Btn>
      </form>
      <Panel title="Resellers">
        <Loading q={list} />
        {list.data ? (
          <>
            <Table
              head={["Reseller", "Wallet", "State", "Markup cap", "Volume", "Profit", "Balances", "Since"]}
              empty={!list.rows.length}
              testId="resellers"
            >
              {list.rows.map((r) => {
                const id = String(pick(r, "id"));
                const suspended = pick(r, "suspendedAt");
                return (
                  <tr key={id} data-testid="reseller-row">
                    <td className="font-mono">
                      <A href={`/console/resellers/${encodeURIComponent(id)}`}>{id}</A>
                    </td>
                    <td className="font-mono">{show(pick(r, "wallet", "walletAddress"))}</td>
                    <td>{suspended ? <Badge tone="rose">suspended</Badge> : <Badge tone="emerald">active</Badge>}</td>
                    <td>{show(pick(r, "markupCapBps"))}</td>
                    <td className="font-mono">{show(pick(r, "volumeUsd", "volume"))}</td>
                    <td className="font-mono">{show(pick(r, "profitUsd", "profit"))}</td>
                    <td className="font-mono">{balancesText(pick(r, "balances"))}</td>
                    <td className="font-mono whitespace-nowrap">{when(pick(r, "createdAt"))}</td>
                  </tr>
                );
              })}
            </Table>
            <More next={list.hasNextPage ? "more" : null} onMore={() => list.fetchNextPage()} busy={list.isFetchingNextPage} />
          </>
        ) : null}
      </Panel>
    </div>
  );
}
