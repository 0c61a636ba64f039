"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { type FormEvent, useState } from "react";
import { qs, useConsoleList } from "@/components/console/api";
import {
  A,
  amount,
  Badge,
  Btn,
  inputClass,
  Loading,
  More,
  Panel,
  pick,
  ref,
  show,
  statusTone,
  Table,
  Title,
  when,
} from "@/components/console/ui";

// Orders across every reseller (GET /api/console/orders): search by our id, the provider's id,
// an address, a transaction hash or a reseller's wallet; filters; keyset pages ("More").
// The filters live in the address bar, so a search can be shared.

const FILTERS = ["q", "status", "reason", "provider", "channel", "olderThanMinutes"] as const;
const STATES = ["", "waiting", "confirming", "exchanging", "sending", "finished", "failed"];
const REASONS = ["", "hold", "needs_action", "refunding", "unknown"];

export function OrdersView() {
  const sp = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const params = Object.fromEntries(FILTERS.map((f) => [f, sp.get(f) ?? ""])) as Record<(typeof FILTERS)[number], string>;
  const list = useConsoleList<Record<string, unknown>>(`/orders${qs({ ...params, limit: 50 })}`, "orders");
  const [formKey, setFormKey] = useState(0);

  function apply(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const next = qs(Object.fromEntries(FILTERS.map((f) => [f, String(data.get(f) ?? "").trim()])));
    router.replace(`${pathname}${next}`, { scroll: false });
  }

  return (
    <div>
      <Title>Orders</Title>
      <form key={formKey} onSubmit={apply} className="mb-3 flex flex-wrap items-end gap-2 text-xs" aria-label="Search orders">
        <label className="flex min-w-72 flex-1 flex-col gap-0.5 text-zinc-600">
          Search
          <input
            name="q"
            defaultValue={params.q}
            placeholder="order id, provider id, address, tx hash, reseller wallet"
            className={inputClass}
            type="search"
          />
        </label>
        <label className="flex flex-col gap-0.5 text-zinc-600">
          State
          <select name="status" defaultValue={params.status} className={inputClass}>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s || "any"}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-0.5 text-zinc-600">
          Reason
          <select name="reason" defaultValue={params.reason} className={inputClass}>
            {REASONS.map((s) => (
              <option key={s} value={s}>
                {s || "any"}
              </option>
            ))}
          </select>
        </label>
        <label className="flex w-28 flex-col gap-0.5 text-zinc-600">
          Provider
          <input name="provider" defaultValue={params.provider} className={inputClass} placeholder="sideshift" />
        </label>
        <label className="flex w-32 flex-col gap-0.5 text-zinc-600">
          Channel
          <input name="channel" defaultValue={params.channel} className={inputClass} placeholder="key, widget, page" />
        </label>
        <label className="flex w-28 flex-col gap-0.5 text-zinc-600">
          Older than (min)
          <input name="olderThanMinutes" defaultValue={params.olderThanMinutes} className={inputClass} inputMode="numeric" />
        </label>
        <Btn type="submit">Search</Btn>
        <Btn
          tone="secondary"
          onClick={() => {
            setFormKey((k) => k + 1);
            router.replace(pathname, { scroll: false });
          }}
        >
          Clear
        </Btn>
      </form>
      <Panel title="Orders">
        <Loading q={list} />
        {list.data ? (
          <>
            <Table
              head={["Order", "State", "Reason", "Provider", "Provider id", "From", "To", "Reseller", "Channel", "Created", "Updated"]}
              empty={!list.rows.length}
              testId="orders"
            >
              {list.rows.map((o) => {
                const id = String(pick(o, "id"));
                const [rid, rlabel] = ref(pick(o, "reseller", "resellerWallet", "resellerId"));
                const status = show(pick(o, "status"));
                const reason = pick(o, "stateReason", "reason");
                return (
                  <tr key={id} data-testid="order-row">
                    <td className="font-mono whitespace-nowrap">
                      <A href={`/console/orders/${encodeURIComponent(id)}`}>{id}</A>
                    </td>
                    <td>
                      <Badge tone={statusTone(status)}>{status}</Badge>
                    </td>
                    <td>{reason ? <Badge tone={statusTone(String(reason))}>{String(reason)}</Badge> : "—"}</td>
                    <td>{show(pick(o, "provider"))}</td>
                    <td className="font-mono">{show(pick(o, "providerOrderId", "upstreamId", "providerId"))}</td>
                    <td className="whitespace-nowrap">
                      {amount(pick(o, "fromAmount", "from.amount"), pick(o, "fromCurrency", "from.ticker", "from"))}
                    </td>
                    <td className="whitespace-nowrap">
                      {amount(pick(o, "toAmount", "to.amount"), pick(o, "toCurrency", "to.ticker", "to"))}
                    </td>
                    <td className="font-mono">{rid ? <A href={`/console/resellers/${encodeURIComponent(rid)}`}>{rlabel}</A> : rlabel}</td>
                    <td>{show(pick(o, "channel.type", "channel"))}</td>
                    <td className="font-mono whitespace-nowrap">{when(pick(o, "createdAt"))}</td>
                    <td className="font-mono whitespace-nowrap">{when(pick(o, "updatedAt"))}</td>
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
