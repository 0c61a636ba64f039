"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { createWidgetAction, setWidgetEnabledAction, updateWidgetAction } from "@/app/dashboard/actions";
import { callAction } from "@/app/dashboard/call-action";
import { queryKeys } from "@/app/dashboard/query-keys";
import { fetchRead } from "@/app/dashboard/read";
import { CodeBlock } from "@/components/dashboard/CodeBlock";
import { Alert, Button, Card, CardHeader, EmptyState, PageHeader } from "@/components/ui";
import type { WidgetView } from "@/lib/dashboard/types";
import type { BrandSettings } from "@/lib/resellers/brand-types";
import { BrandSection } from "./BrandSection";

// Widgets (docs/widgets.md): each is a channel with its own look, defaults, markup and the
// sites allowed to frame it; the page lists them (at most 50) and opens one at a time, with its
// form, its iframe and resize snippets and a live preview (every widget open at once made the
// page 350 KB and 50 framed previews at 50 widgets).

interface Form {
  name: string;
  markup: string;
  origins: string;
  accent: string;
  theme: "light" | "dark";
  defaultFrom: string;
  defaultTo: string;
  defaultAmount: string;
}

const EMPTY: Form = {
  name: "",
  markup: "",
  origins: "",
  accent: "#4f46e5",
  theme: "light",
  defaultFrom: "btc",
  defaultTo: "eth",
  defaultAmount: "",
};

const formOf = (w: WidgetView): Form => ({
  name: w.name,
  markup: w.markupBps === null ? "" : String(w.markupBps),
  origins: w.allowedOrigins.join("\n"),
  accent: w.accent,
  theme: w.theme,
  defaultFrom: w.defaultFrom ?? "",
  defaultTo: w.defaultTo ?? "",
  defaultAmount: w.defaultAmount ?? "",
});

function inputOf(f: Form) {
  const markup = f.markup.trim();
  return {
    name: f.name,
    markupBps: markup === "" ? null : Number(markup),
    allowedOrigins: f.origins
      .split(/[\s,]+/)
      .map((o) => o.trim())
      .filter(Boolean),
    accent: f.accent,
    theme: f.theme,
    defaultFrom: f.defaultFrom.trim() || null,
    defaultTo: f.defaultTo.trim() || null,
    defaultAmount: f.defaultAmount.trim() || null,
  };
}

/** The widget's URL with the form's look and defaults as URL parameters (the live preview's, before saving). */
function previewUrl(origin: string, id: string, f: Form) {
  const p = new URLSearchParams({ theme: f.theme, accent: f.accent.replace("#", "") });
  if (f.defaultFrom) p.set("from", f.defaultFrom);
  if (f.defaultTo) p.set("to", f.defaultTo);
  if (f.defaultAmount) p.set("amount", f.defaultAmount);
  return `${origin}/w/${id}?${p}`;
}

export function iframeSnippet(origin: string, id: string) {
  return `<iframe src="${origin}/w/${id}" title="Exchange" style="width:100%;max-width:480px;height:640px;border:0" loading="lazy"></iframe>`;
}

export function resizeSnippet(origin: string, id: string) {
  return `<script>
addEventListener("message", function (e) {
  if (e.origin !== "${origin}" || !e.data || e.data.type !== "reseller-widget:height") return;
  document.querySelectorAll('iframe[src^="${origin}/w/${id}"]').forEach(function (f) {
    if (f.contentWindow === e.source) f.style.height = e.data.height + "px";
  });
});
</script>`;
}

function WidgetForm({ value, onChange, capBps }: { value: Form; onChange: (f: Form) => void; capBps: number }) {
  const id = useId();
  const set = (k: keyof Form) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) =>
    onChange({ ...value, [k]: e.target.value });
  const field = "mt-1 block w-full rounded-md border border-zinc-300 px-3 py-2 text-sm";
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <label className="text-sm font-medium" htmlFor={`${id}-name`}>
        Name
        <input id={`${id}-name`} className={field} value={value.name} onChange={set("name")} maxLength={64} data-testid="widget-name" />
      </label>
      <label className="text-sm font-medium" htmlFor={`${id}-markup`}>
        Markup (bps, empty: your default; at most {capBps})
        <input
          id={`${id}-markup`}
          className={field}
          inputMode="numeric"
          value={value.markup}
          onChange={set("markup")}
          data-testid="widget-markup"
        />
      </label>
      <label className="text-sm font-medium sm:col-span-2" htmlFor={`${id}-origins`}>
        Sites allowed to embed it (one origin per line, e.g. https://example.com)
        <textarea
          id={`${id}-origins`}
          className={`${field} font-mono`}
          rows={3}
          value={value.origins}
          onChange={set("origins")}
          data-testid="widget-origins"
        />
      </label>
      <label className="text-sm font-medium" htmlFor={`${id}-accent`}>
        Accent colour
        <span className="mt-1 flex items-center gap-2">
          <input
            id={`${id}-accent`}
            type="color"
            className="h-9 w-12 rounded border border-zinc-300"
            value={value.accent}
            onChange={set("accent")}
          />
          <span className="font-mono text-sm">{value.accent}</span>
        </span>
      </label>
      <label className="text-sm font-medium" htmlFor={`${id}-theme`}>
        Theme
        <select id={`${id}-theme`} className={field} value={value.theme} onChange={set("theme")}>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </label>
      <label className="text-sm font-medium" htmlFor={`${id}-from`}>
        Default currency to send (ticker)
        <input id={`${id}-from`} className={field} value={value.defaultFrom} onChange={set("defaultFrom")} />
      </label>
      <label className="text-sm font-medium" htmlFor={`${id}-to`}>
        Default currency to receive (ticker)
        <input id={`${id}-to`} className={field} value={value.defaultTo} onChange={set("defaultTo")} />
      </label>
      <label className="text-sm font-medium" htmlFor={`${id}-amount`}>
        Default amount
        <input id={`${id}-amount`} className={field} inputMode="decimal" value={value.defaultAmount} onChange={set("defaultAmount")} />
      </label>
    </div>
  );
}

function WidgetCard({ w, origin, resellerId, capBps }: { w: WidgetView; origin: string; resellerId: string; capBps: number }) {
  const qc = useQueryClient();
  const [form, setForm] = useState<Form>(() => formOf(w));
  const save = useMutation({
    mutationFn: () => callAction(updateWidgetAction(w.id, inputOf(form))),
    onSuccess: (saved) => {
      setForm(formOf(saved));
      void qc.invalidateQueries({ queryKey: queryKeys.widgets });
    },
  });
  const toggle = useMutation({
    mutationFn: () => callAction(setWidgetEnabledAction(w.id, w.disabled)),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.widgets }),
  });
  const titleId = useId();
  return (
    <Card aria-labelledby={titleId} data-testid="widget-card" data-widget-id={w.id}>
      <CardHeader
        id={titleId}
        title={w.name}
        description={`${w.markupBps === null ? "Your default markup" : `${w.markupBps} bps markup`} · ${w.allowedOrigins.length} site(s) allowed${w.disabled ? " · disabled" : ""}`}
        actions={
          <Button variant={w.disabled ? "secondary" : "danger"} size="sm" onClick={() => toggle.mutate()} disabled={toggle.isPending}>
            {w.disabled ? "Enable" : "Disable"}
          </Button>
        }
      />
      <div className="grid gap-6 p-4 sm:p-5 lg:grid-cols-2">
        <div className="min-w-0 space-y-4">
          <WidgetForm value={form} onChange={setForm} capBps={capBps} />
          {save.error ? <Alert>{save.error.message}</Alert> : null}
          {save.isSuccess && !save.isPending ? <Alert tone="success">Saved.</Alert> : null}
          <Button onClick={() => save.mutate()} disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save"}
          </Button>
          <CodeBlock label="iframe" code={iframeSnippet(origin, w.id)} />
          <CodeBlock label="Resize script (sizes the iframe to its content)" code={resizeSnippet(origin, w.id)} />
          <CodeBlock label="Referral link (the full page, counted under this widget)" code={`${origin}/x/${resellerId}?channel=${w.id}`} />
        </div>
        <div className="min-w-0">
          <p className="mb-2 text-sm font-medium text-zinc-700">Live preview</p>
          <iframe
            src={previewUrl(origin, w.id, form)}
            title={`Preview of ${w.name}`}
            className="h-[640px] w-full max-w-[480px] rounded-md border border-zinc-200"
            data-testid="widget-preview"
          />
        </div>
      </div>
    </Card>
  );
}

export function WidgetsView({
  initial,
  initialBrand,
  origin,
  resellerId,
  capBps,
  maxWidgets,
}: {
  initial: WidgetView[];
  initialBrand: BrandSettings;
  origin: string;
  resellerId: string;
  capBps: number;
  maxWidgets: number;
}) {
  const qc = useQueryClient();
  const widgets = useQuery({
    queryKey: queryKeys.widgets,
    queryFn: ({ signal }) => fetchRead("widgets", {}, signal),
    initialData: initial,
  });
  const [form, setForm] = useState<Form>(EMPTY);
  const [adding, setAdding] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () => callAction(createWidgetAction(inputOf(form))),
    onSuccess: (made) => {
      setForm(EMPTY);
      setAdding(false);
      setOpen(made.id);
      void qc.invalidateQueries({ queryKey: queryKeys.widgets });
    },
  });
  const rows = widgets.data ?? [];
  const opened = rows.find((w) => w.id === open) ?? null;
  const listId = useId();
  return (
    <>
      <PageHeader
        title="Widgets"
        description="An exchange widget to embed on your site. Each widget is a channel: its orders, volume and profit show on the Overview, and it may have its own markup."
        actions={
          adding ? null : (
            <Button onClick={() => setAdding(true)} data-testid="new-widget">
              New widget
            </Button>
          )
        }
      />
      <div className="space-y-6">
        <Card aria-labelledby="referral-title">
          <CardHeader
            id="referral-title"
            title="Your exchange page"
            description="The hosted page at this link is your referral link; orders made there use your default markup."
          />
          <div className="p-4 sm:p-5">
            <CodeBlock label="Referral link" code={`${origin}/x/${resellerId}`} />
          </div>
        </Card>
        <BrandSection initial={initialBrand} />
        {adding ? (
          <Card aria-labelledby="new-widget-title">
            <CardHeader id="new-widget-title" title="New widget" />
            <form
              className="space-y-4 p-4 sm:p-5"
              onSubmit={(e) => {
                e.preventDefault();
                create.mutate();
              }}
            >
              <WidgetForm value={form} onChange={setForm} capBps={capBps} />
              {create.error ? <Alert>{create.error.message}</Alert> : null}
              <div className="flex gap-2">
                <Button type="submit" disabled={create.isPending} data-testid="create-widget">
                  {create.isPending ? "Creating…" : "Create widget"}
                </Button>
                <Button variant="secondary" onClick={() => setAdding(false)}>
                  Cancel
                </Button>
              </div>
            </form>
          </Card>
        ) : null}
        {rows.length === 0 && !adding ? (
          <Card>
            <EmptyState title="No widgets yet">Create one to get its iframe snippet.</EmptyState>
          </Card>
        ) : null}
        {rows.length ? (
          <Card aria-labelledby={listId}>
            <CardHeader
              id={listId}
              title="Your widgets"
              description={`${rows.length} of at most ${maxWidgets}. Open one to edit it, get its snippets and see it live.`}
            />
            <ul className="divide-y divide-zinc-100">
              {rows.map((w) => (
                <li
                  key={w.id}
                  className="flex flex-wrap items-center justify-between gap-2 px-4 py-3 sm:px-5"
                  data-testid="widget-row"
                  data-widget-id={w.id}
                >
                  <div className="min-w-0">
                    <p className="truncate font-medium">{w.name}</p>
                    <p className="text-xs text-zinc-500">
                      {w.markupBps === null ? "Your default markup" : `${w.markupBps} bps markup`} · {w.allowedOrigins.length} site(s)
                      allowed
                      {w.disabled ? " · disabled" : ""}
                    </p>
                  </div>
                  <Button variant="secondary" size="sm" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>
                    {open === w.id ? "Close" : "Open"}
                    <span className="sr-only"> {w.name}</span>
                  </Button>
                </li>
              ))}
            </ul>
          </Card>
        ) : null}
        {opened ? <WidgetCard key={opened.id} w={opened} origin={origin} resellerId={resellerId} capBps={capBps} /> : null}
      </div>
    </>
  );
}
