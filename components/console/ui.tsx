"use client";

import Link from "next/link";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { cx } from "@/components/ui";
import type { ConsoleError } from "./api";

// The console's building blocks: plain and dense, like an operations tool.

export function Title({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
      <h1 className="text-lg font-semibold text-zinc-900">{children}</h1>
      {actions ? <div className="flex flex-wrap items-center gap-2">{actions}</div> : null}
    </div>
  );
}

export function Panel({
  title,
  children,
  actions,
  testId,
}: {
  title: ReactNode;
  children: ReactNode;
  actions?: ReactNode;
  testId?: string;
}) {
  return (
    <section className="mb-4 min-w-0 border border-zinc-200 bg-white" data-testid={testId}>
      <div className="flex items-center justify-between gap-2 border-b border-zinc-200 bg-zinc-100 px-2 py-1">
        <h2 className="text-xs font-semibold tracking-wide text-zinc-700 uppercase">{title}</h2>
        {actions}
      </div>
      <div className="min-w-0">{children}</div>
    </section>
  );
}

export function ErrorLine({ error }: { error: ConsoleError | Error | null | undefined }) {
  if (!error) return null;
  const code = (error as ConsoleError).code;
  return (
    <p role="alert" data-testid="console-error" className="border border-rose-200 bg-rose-50 px-2 py-1 text-rose-800">
      {code ? <span className="mr-1 font-mono text-xs">{code}</span> : null}
      {error.message}
    </p>
  );
}

/** The state of a read: loading, its error, or nothing when the data is there. */
export function Loading<T>({ q }: { q: { isPending: boolean; isError: boolean; error: ConsoleError | null; data?: T } }) {
  if (q.isPending) return <p className="px-2 py-3 text-zinc-500">Loading…</p>;
  if (q.isError) return <ErrorLine error={q.error} />;
  return null;
}

export function Table({ head, children, empty, testId }: { head: ReactNode[]; children: ReactNode; empty?: boolean; testId?: string }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full border-collapse text-left text-xs" data-testid={testId}>
        <thead className="bg-zinc-50 text-zinc-600">
          <tr>
            {head.map((h, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a fixed header row
              <th key={i} scope="col" className="border-b border-zinc-200 px-2 py-1 font-medium whitespace-nowrap">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="[&>tr:nth-child(even)]:bg-zinc-50/60 [&>tr]:border-b [&>tr]:border-zinc-100 [&_td]:px-2 [&_td]:py-1 [&_td]:align-top">
          {children}
        </tbody>
      </table>
      {empty ? <p className="px-2 py-3 text-zinc-500">Nothing here.</p> : null}
    </div>
  );
}

export function KV({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5 px-2 py-1.5 text-xs">
      {rows.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="text-zinc-500">{k}</dt>
          <dd className="min-w-0 font-mono break-all text-zinc-900">{v ?? "—"}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Mono({ children, title }: { children: ReactNode; title?: string }) {
  return (
    <span className="font-mono" title={title}>
      {children}
    </span>
  );
}

export function A({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Link href={href} className="text-indigo-700 underline decoration-indigo-300 hover:decoration-indigo-700">
      {children}
    </Link>
  );
}

export function Badge({ children, tone = "zinc" }: { children: ReactNode; tone?: "zinc" | "amber" | "rose" | "emerald" | "sky" }) {
  const tones = {
    zinc: "bg-zinc-100 text-zinc-700",
    amber: "bg-amber-100 text-amber-900",
    rose: "bg-rose-100 text-rose-800",
    emerald: "bg-emerald-100 text-emerald-800",
    sky: "bg-sky-100 text-sky-800",
  };
  return <span className={cx("inline-block rounded px-1.5 py-px text-xs font-medium whitespace-nowrap", tones[tone])}>{children}</span>;
}

export function statusTone(status: string | null | undefined): "zinc" | "amber" | "rose" | "emerald" | "sky" {
  if (!status) return "zinc";
  if (["finished", "confirmed", "sent", "approved", "active"].includes(status)) return "emerald";
  if (["failed", "rejected", "refunded", "suspended", "removed"].includes(status)) return "rose";
  if (["hold", "needs_action", "awaiting_approval", "unknown", "stuck", "refunding", "verifying", "review"].includes(status))
    return "amber";
  return "sky";
}

export const inputClass =
  "rounded border border-zinc-300 bg-white px-1.5 py-1 text-xs text-zinc-900 focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500";

export function Btn({
  children,
  tone = "primary",
  className,
  ...props
}: React.ComponentProps<"button"> & { tone?: "primary" | "secondary" | "danger" }) {
  const tones = {
    primary: "bg-zinc-900 text-white hover:bg-zinc-700 disabled:bg-zinc-400",
    secondary: "bg-white text-zinc-900 ring-1 ring-zinc-300 hover:bg-zinc-100 disabled:text-zinc-400",
    danger: "bg-rose-700 text-white hover:bg-rose-600 disabled:bg-rose-300",
  };
  return (
    <button type="button" {...props} className={cx("rounded px-2 py-1 text-xs font-medium whitespace-nowrap", tones[tone], className)}>
      {children}
    </button>
  );
}

export interface FieldSpec {
  name: string;
  label: string;
  type?: "text" | "textarea" | "select";
  options?: { value: string; label: string }[];
  required?: boolean;
  placeholder?: string;
}

/**
 * A small action form: its fields, a submit button, the server's error or what it did.
 * `onSubmit` gets the fields' values (empty ones left out) and throws to show an error.
 */
export function ActionForm({
  title,
  fields,
  submit,
  onSubmit,
  tone = "primary",
  testId,
  done,
}: {
  title?: string;
  fields: FieldSpec[];
  submit: string;
  onSubmit: (values: Record<string, string>) => Promise<unknown>;
  tone?: "primary" | "danger";
  testId?: string;
  done?: string;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [ok, setOk] = useState(false);
  async function handle(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const values: Record<string, string> = {};
    for (const f of fields) {
      const v = String(data.get(f.name) ?? "").trim();
      if (v) values[f.name] = v;
    }
    setBusy(true);
    setError(null);
    setOk(false);
    try {
      await onSubmit(values);
      setOk(true);
      form.reset();
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form onSubmit={handle} className="space-y-1 px-2 py-1.5" data-testid={testId} aria-label={title ?? submit}>
      {title ? <p className="text-xs font-semibold text-zinc-700">{title}</p> : null}
      <div className="flex flex-wrap items-end gap-2">
        {fields.map((f) => (
          <Field key={f.name} f={f} />
        ))}
        <Btn type="submit" tone={tone} disabled={busy}>
          {busy ? "Working…" : submit}
        </Btn>
      </div>
      <ErrorLine error={error} />
      {ok && done ? (
        <p role="status" className="text-xs text-emerald-700">
          {done}
        </p>
      ) : null}
    </form>
  );
}

function Field({ f }: { f: FieldSpec }) {
  const id = useId();
  return (
    <div className="flex min-w-40 flex-1 flex-col gap-0.5 text-xs text-zinc-600">
      <label htmlFor={id}>{f.label}</label>
      {f.type === "textarea" ? (
        <textarea id={id} name={f.name} required={f.required} placeholder={f.placeholder} rows={2} className={inputClass} />
      ) : f.type === "select" ? (
        <select id={id} name={f.name} required={f.required} className={inputClass}>
          {(f.options ?? []).map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      ) : (
        <input id={id} name={f.name} required={f.required} placeholder={f.placeholder} className={inputClass} />
      )}
    </div>
  );
}

/** "3d 4h", "12m 5s": how long something has waited. */
export function waited(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "—";
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d) return `${d}d ${h}h`;
  if (h) return `${h}h ${m}m`;
  if (m) return `${m}m ${s % 60}s`;
  return `${s}s`;
}

/** An ISO date as "2026-11-29 13:55:54Z"; other values as they are. */
export function when(v: unknown): string {
  if (typeof v !== "string" || !v) return "—";
  const t = Date.parse(v);
  if (Number.isNaN(t)) return v;
  return `${new Date(t).toISOString().slice(0, 19).replace("T", " ")}Z`;
}

/** Any value as short text: objects as JSON. */
export function show(v: unknown): string {
  if (v === null || v === undefined || v === "") return "—";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

/** The "more" button of a keyset list. */
export function More({ next, onMore, busy }: { next: string | number | null | undefined; onMore: () => void; busy?: boolean }) {
  if (next === null || next === undefined || next === "") return null;
  return (
    <div className="border-t border-zinc-200 px-2 py-1.5">
      <Btn tone="secondary" onClick={onMore} disabled={busy}>
        {busy ? "Loading…" : "More"}
      </Btn>
    </div>
  );
}

/** The first of `keys` that `o` has (not null): the pages read fields defensively. */
export function pick(o: unknown, ...keys: string[]): unknown {
  if (!o || typeof o !== "object") return undefined;
  const r = o as Record<string, unknown>;
  for (const k of keys) {
    const path = k.split(".");
    let v: unknown = r;
    for (const p of path) v = v && typeof v === "object" ? (v as Record<string, unknown>)[p] : undefined;
    if (v !== undefined && v !== null) return v;
  }
  return undefined;
}

/** A reference (an id string, or an object with id/wallet) as [id, label]. */
export function ref(v: unknown): [string | null, string] {
  if (typeof v === "string") return [v, v];
  const id = pick(v, "id");
  const label = pick(v, "wallet", "walletAddress", "name", "id");
  return [typeof id === "string" ? id : null, label === undefined ? "—" : String(label)];
}

/** An amount with its ticker: "0.1 BTC" from ("0.1", "btc") or from {amount, ticker}. */
export function amount(v: unknown, ticker?: unknown): string {
  if (v === undefined || v === null || v === "") return "—";
  const t = typeof ticker === "string" ? ` ${ticker.toUpperCase()}` : "";
  return `${String(v)}${t}`;
}

/**
 * Rows whose shape the page does not fix: a column per key (the `first` ones first), values as
 * short text, dates as UTC. For the provider's raw statuses, journals and the like.
 */
export function AnyTable({ rows, first = [], testId }: { rows: unknown[]; first?: string[]; testId?: string }) {
  const objs = rows.filter((r): r is Record<string, unknown> => !!r && typeof r === "object");
  const keys = [...new Set([...first.filter((k) => objs.some((o) => k in o)), ...objs.flatMap((o) => Object.keys(o))])];
  return (
    <Table head={keys} empty={!objs.length} testId={testId}>
      {objs.map((o, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows of a read, in the server's order
        <tr key={i}>
          {keys.map((k) => {
            const v = o[k];
            const text = typeof v === "string" && /^\d{4}-\d\d-\d\dT/.test(v) ? when(v) : show(v);
            return (
              <td key={k} className={cx("font-mono", text.length > 80 ? "min-w-80 break-all" : "whitespace-nowrap")}>
                {text}
              </td>
            );
          })}
        </tr>
      ))}
    </Table>
  );
}

/** Every scalar field of an object as key/value rows (nested objects as JSON). */
export function AnyKV({ value, testId }: { value: unknown; testId?: string }) {
  if (!value || typeof value !== "object") return <p className="px-2 py-1 text-zinc-500">—</p>;
  const rows = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => !Array.isArray(v))
    .map(([k, v]): [string, ReactNode] => [k, typeof v === "string" && /^\d{4}-\d\d-\d\dT/.test(v) ? when(v) : show(v)]);
  return (
    <div data-testid={testId}>
      <KV rows={rows} />
    </div>
  );
}
