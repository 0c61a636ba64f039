"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { type FormEvent, useState } from "react";
import { AuditRows } from "@/components/console/AuditRows";
import { qs, useConsoleList } from "@/components/console/api";
import { Btn, inputClass, Loading, More, Panel, Title } from "@/components/console/ui";

// The audit log (GET /api/console/audit): every operator action and sign-in, newest first,
// filtered; keyset pages ("More", the answer's `next` as `before`); the same filters as CSV
// (GET /api/console/audit.csv). Append-only: nothing here changes it.

const FILTERS = ["action", "actionPrefix", "targetType", "targetId", "actor", "from", "to"] as const;
const TARGET_TYPES = ["", "order", "reseller", "withdrawal", "provider", "operator"];

/** A datetime-local value ("2026-11-29T13:00") as UTC ISO; other text as typed. */
const asIso = (v: string) => (/^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(v) ? `${v}:00Z` : v);

export function AuditView() {
  const sp = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const params = Object.fromEntries(FILTERS.map((f) => [f, sp.get(f) ?? ""])) as Record<(typeof FILTERS)[number], string>;
  const list = useConsoleList<Record<string, unknown>>(`/audit${qs({ ...params, limit: 100 })}`, "events", "before");
  const [formKey, setFormKey] = useState(0);

  function apply(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const next = qs(Object.fromEntries(FILTERS.map((f) => [f, asIso(String(data.get(f) ?? "").trim())])));
    router.replace(`${pathname}${next}`, { scroll: false });
  }

  const field = (name: (typeof FILTERS)[number], label: string, placeholder = "", width = "w-40") => (
    <label className={`flex ${width} flex-col gap-0.5 text-zinc-600`}>
      {label}
      <input name={name} defaultValue={params[name]} placeholder={placeholder} className={inputClass} />
    </label>
  );

  return (
    <div>
      <Title
        actions={
          <a
            href={`/api/console/audit.csv${qs(params)}`}
            className="rounded px-2 py-1 text-xs font-medium text-zinc-900 ring-1 ring-zinc-300 hover:bg-zinc-100"
            download
          >
            Export CSV
          </a>
        }
      >
        Audit log
      </Title>
      <form key={formKey} onSubmit={apply} className="mb-3 flex flex-wrap items-end gap-2 text-xs" aria-label="Filter the audit log">
        {field("action", "Action", "order.refund_address")}
        {field("actionPrefix", "Action starts with", "order.")}
        <label className="flex flex-col gap-0.5 text-zinc-600">
          Target type
          <select name="targetType" defaultValue={params.targetType} className={inputClass}>
            {TARGET_TYPES.map((t) => (
              <option key={t} value={t}>
                {t || "any"}
              </option>
            ))}
          </select>
        </label>
        {field("targetId", "Target id", "", "w-48")}
        {field("actor", "Actor (wallet)", "0x…", "w-72")}
        {field("from", "From (UTC)", "2026-11-01T00:00")}
        {field("to", "To (UTC)", "2026-12-01T00:00")}
        <Btn type="submit">Filter</Btn>
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
      <Panel title="Events, newest first">
        <Loading q={list} />
        {list.data ? (
          <>
            <AuditRows rows={list.rows} testId="audit" />
            <More next={list.hasNextPage ? "more" : null} onMore={() => list.fetchNextPage()} busy={list.isFetchingNextPage} />
          </>
        ) : null}
      </Panel>
    </div>
  );
}
