import Link from "next/link";
import type { ComponentProps, ReactNode } from "react";

export function cx(...c: (string | false | null | undefined)[]) {
  return c.filter(Boolean).join(" ");
}

const BUTTON = {
  primary: "bg-indigo-600 text-white shadow-sm hover:bg-indigo-500 disabled:bg-indigo-300",
  secondary: "bg-white text-zinc-900 ring-1 ring-inset ring-zinc-300 shadow-sm hover:bg-zinc-50 disabled:text-zinc-400",
  danger: "bg-white text-rose-700 ring-1 ring-inset ring-rose-200 shadow-sm hover:bg-rose-50 disabled:text-rose-300",
  dangerSolid: "bg-rose-600 text-white shadow-sm hover:bg-rose-500 disabled:bg-rose-300",
  ghost: "text-zinc-700 hover:bg-zinc-100 disabled:text-zinc-400",
} as const;

export function Button({
  variant = "primary",
  size = "md",
  className,
  ...props
}: ComponentProps<"button"> & { variant?: keyof typeof BUTTON; size?: "sm" | "md" }) {
  return (
    <button
      type="button"
      {...props}
      className={cx(
        "inline-flex items-center justify-center gap-2 rounded-md font-medium transition-colors disabled:cursor-not-allowed",
        size === "sm" ? "px-2.5 py-1.5 text-sm" : "px-4 py-2 text-sm",
        BUTTON[variant],
        className,
      )}
    />
  );
}

export function Card({ className, children, ...props }: ComponentProps<"section">) {
  return (
    <section {...props} className={cx("min-w-0 rounded-lg border border-zinc-200 bg-white shadow-sm", className)}>
      {children}
    </section>
  );
}

export function CardHeader({
  title,
  description,
  actions,
  id,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  id?: string;
}) {
  return (
    <div className="flex flex-wrap items-start justify-between gap-3 border-b border-zinc-100 px-4 py-3 sm:px-5">
      <div className="min-w-0">
        <h2 id={id} className="text-base font-semibold text-zinc-900">
          {title}
        </h2>
        {description ? <p className="mt-0.5 text-sm text-zinc-500">{description}</p> : null}
      </div>
      {actions ? <div className="flex flex-wrap items-center gap-2">{actions}</div> : null}
    </div>
  );
}

export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-6 flex flex-wrap items-end justify-between gap-4">
      <div className="min-w-0">
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">{title}</h1>
        {description ? <p className="mt-1 max-w-2xl text-sm text-zinc-600">{description}</p> : null}
      </div>
      {actions ? <div className="flex flex-wrap items-center gap-2">{actions}</div> : null}
    </div>
  );
}

export function Alert({
  tone = "error",
  children,
  title,
}: {
  tone?: "error" | "info" | "success" | "warning";
  title?: string;
  children: ReactNode;
}) {
  const tones = {
    error: "border-rose-200 bg-rose-50 text-rose-800",
    info: "border-sky-200 bg-sky-50 text-sky-900",
    success: "border-emerald-200 bg-emerald-50 text-emerald-900",
    warning: "border-amber-200 bg-amber-50 text-amber-900",
  };
  return (
    <div role={tone === "error" ? "alert" : "status"} className={cx("rounded-md border px-3 py-2 text-sm", tones[tone])}>
      {title ? <p className="font-medium">{title}</p> : null}
      <div>{children}</div>
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="px-4 py-10 text-center">
      <p className="font-medium text-zinc-900">{title}</p>
      {children ? <div className="mt-1 text-sm text-zinc-500">{children}</div> : null}
    </div>
  );
}

const STATUS_TONE: Record<string, string> = {
  waiting: "bg-zinc-100 text-zinc-700 ring-zinc-200",
  confirming: "bg-sky-50 text-sky-700 ring-sky-200",
  exchanging: "bg-indigo-50 text-indigo-700 ring-indigo-200",
  sending: "bg-violet-50 text-violet-700 ring-violet-200",
  finished: "bg-emerald-50 text-emerald-700 ring-emerald-200",
  failed: "bg-rose-50 text-rose-700 ring-rose-200",
  // Withdrawals.
  queued: "bg-zinc-100 text-zinc-700 ring-zinc-200",
  processing: "bg-indigo-50 text-indigo-700 ring-indigo-200",
  sent: "bg-violet-50 text-violet-700 ring-violet-200",
  confirmed: "bg-emerald-50 text-emerald-700 ring-emerald-200",
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span
      data-status={status}
      className={cx(
        "inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset",
        STATUS_TONE[status] ?? STATUS_TONE.waiting,
      )}
    >
      {status}
    </span>
  );
}

export function TextLink({ className, ...props }: ComponentProps<typeof Link>) {
  return <Link {...props} className={cx("font-medium text-indigo-700 underline-offset-2 hover:underline", className)} />;
}
