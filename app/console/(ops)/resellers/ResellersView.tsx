"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { qs, useConsoleList } from "@/components/console/api";
import { A, Badge, Btn, inputClass, Loading, More, Panel, pick, show, Table, Title, when } from "@/components/console/ui";

// Every reseller (GET /api/console/resellers): volume, profit and balances, whether suspended,
// its markup cap; search by wallet or id; keyset pages.

/** Balances as "USDC 1.2 available (0.3 pending, 0.1 reserved)" per currency, from the ledger's buckets. */
export function balancesText(v: unknown): string {
  if (!Array.isArray(v) || !v.length) return "—";
  return v
    .map((b) => {
      const extra = [
        pick(b, "pending") && pick(b, "pending") !== "0" ? `${show(pick(b, "pending"))} pending` : "",
        pick(b, "reserved") && pick(b, "reserved") !== "0" ? `${show(pick(b, "reserved"))} reserved` : "",
      ].filter(Boolean);
      return `${show(pick(b, "currency")).toUpperCase()} ${show(pick(b, "available"))}${extra.length ? ` (${extra.join(", ")})` : ""}`;
    })
    .join("; ");
}

/** Finished volume and profit per currency: "ETH 2.05 / 0.01". */
export function figuresText(v: unknown, field: "volume" | "profit"): string {
  const rows = pick(v, "byCurrency");
  if (!Array.isArray(rows) || !rows.length) return "—";
  return rows.map((r) => `${show(pick(r, "currency")).toUpperCase()} ${show(pick(r, field))}`).join("; ");
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
                    <td>
                      {pick(r, "revokedAt") ? (
                        <Badge tone="rose">revoked</Badge>
                      ) : suspended ? (
                        <Badge tone="rose">suspended</Badge>
                      ) : (
                        <Badge tone="emerald">active</Badge>
                      )}
                    </td>
                    <td className="font-mono">{show(pick(r, "markupBps"))}</td>
                    <td className="font-mono">{show(pick(r, "markupCapBps"))}</td>
                    <td className="font-mono">
                      {show(pick(r, "figures.orders"))} ({show(pick(r, "figures.finished"))})
                    </td>
                    <td className="font-mono">{figuresText(pick(r, "figures"), "volume")}</td>
                    <td className="font-mono">{figuresText(pick(r, "figures"), "profit")}</td>
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
