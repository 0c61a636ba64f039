"use client";

import { useQuery } from "@tanstack/react-query";
import { queryKeys } from "@/app/dashboard/query-keys";
import { fetchRead } from "@/app/dashboard/read";
import { formatDateTime } from "@/components/format";
import { Button, Card, CardHeader, EmptyState, PageHeader } from "@/components/ui";
import type { StatementMonth, Statements } from "@/lib/dashboard/types";

const MONTH = new Intl.DateTimeFormat("en-GB", { month: "long", year: "numeric", timeZone: "UTC" });
const monthName = (m: string) => MONTH.format(new Date(`${m}-01T00:00:00Z`));

/** Monthly statements per currency; printable (the nav and buttons are hidden on paper) so the browser can save them as PDF. */
export function StatementsView({ initial }: { initial: Statements }) {
  const q = useQuery({
    queryKey: queryKeys.statements,
    queryFn: ({ signal }) => fetchRead("statements", {}, signal),
    initialData: initial,
    refetchInterval: 60_000,
  });
  const s = q.data ?? initial;
  const currencies = [...new Set(s.months.map((m) => m.currency))];
  return (
    <>
      <PageHeader
        title="Statements"
        description={
          <>
            Month by month (UTC) and per currency: your balance (pending, available and reserved) at the start of the month, the profit
            credited, the profit reversed by failed orders, what was withdrawn, and the balance at the end. As of {formatDateTime(s.asOf)}.
          </>
        }
        actions={
          <div className="flex gap-2 print:hidden">
            <a
              href="/dashboard/export/statements"
              download
              className="inline-flex items-center rounded-md px-3 py-2 text-sm font-medium text-indigo-700 hover:underline"
              data-testid="export-statements"
            >
              Download CSV
            </a>
            <Button variant="secondary" onClick={() => window.print()}>
              Print or save as PDF
            </Button>
          </div>
        }
      />
      {currencies.length === 0 ? (
        <Card>
          <EmptyState title="No statements yet">A statement starts with the month of your first order.</EmptyState>
        </Card>
      ) : (
        <div className="space-y-6 print:space-y-4">
          {currencies.map((c) => (
            <CurrencyStatement key={c} currency={c} months={s.months.filter((m) => m.currency === c)} />
          ))}
        </div>
      )}
    </>
  );
}

function CurrencyStatement({ currency, months }: { currency: string; months: StatementMonth[] }) {
  const id = `statement-${currency}`;
  return (
    <Card aria-labelledby={id} className="print:break-inside-avoid print:shadow-none" data-testid={id}>
      <CardHeader id={id} title={<span className="uppercase">{currency}</span>} />
      <div className="overflow-x-auto">
        <table className="w-full text-sm">
          <thead className="text-left text-xs text-zinc-500">
            <tr>
              <th className="px-4 py-2 font-medium sm:px-5">Month</th>
              <th className="px-2 py-2 text-right font-medium">Opening balance</th>
              <th className="px-2 py-2 text-right font-medium">Profit credited</th>
              <th className="px-2 py-2 text-right font-medium">Profit reversed</th>
              <th className="px-2 py-2 text-right font-medium">Withdrawn</th>
              <th className="px-4 py-2 text-right font-medium sm:px-5">Closing balance</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100">
            {months.map((m) => (
              <tr key={m.month} data-testid={`statement-${currency}-${m.month}`}>
                <th scope="row" className="px-4 py-2 text-left font-medium sm:px-5">
                  {monthName(m.month)}
                </th>
                <td className="px-2 py-2 text-right tabular" data-col="opening">
                  {m.opening}
                </td>
                <td className="px-2 py-2 text-right tabular" data-col="credited">
                  {m.credited}
                </td>
                <td className="px-2 py-2 text-right tabular" data-col="reversed">
                  {m.reversed}
                </td>
                <td className="px-2 py-2 text-right tabular" data-col="withdrawn">
                  {m.withdrawn}
                </td>
                <td className="px-4 py-2 text-right font-medium tabular sm:px-5" data-col="closing">
                  {m.closing}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
