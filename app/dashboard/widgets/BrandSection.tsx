"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { BrandFooter, BrandHeader } from "@/app/_hosted/Brand";
import { setBrandAction } from "@/app/dashboard/actions";
import { callAction } from "@/app/dashboard/call-action";
import { queryKeys } from "@/app/dashboard/query-keys";
import { fetchRead } from "@/app/dashboard/read";
import { Alert, Button, Card, CardHeader } from "@/components/ui";
import type { ActionError } from "@/lib/dashboard/types";
import {
  BRAND_NAME_MAX,
  type BrandInput,
  type BrandSettings,
  LOGO_MAX_BYTES,
  LOGO_MAX_PX,
  LOGO_TYPES,
  type LogoChange,
  type PublicBrand,
} from "@/lib/resellers/brand-types";

// The Widgets page's Brand form (docs/widgets.md, Brand): the display name, logo, accent colour,
// support contact and terms link the reseller's hosted page, widgets and status pages show, with
// a live preview of the header and footer as they will look (the hosted pages' own components).
// The server checks every field (lib/resellers/brand.ts) and names each refused one; the logo's
// size is checked here first, before the file is read.

interface Form {
  name: string;
  accent: string;
  support: string;
  terms: string;
}

type Field = keyof Form | "logo";
type Issues = Partial<Record<Field, string>>;

const formOf = (b: BrandSettings): Form => ({
  name: b.name ?? "",
  accent: b.accent ?? "",
  support: b.support
    ? b.support.kind === "email"
      ? b.support.value
      : b.support.kind === "telegram"
        ? b.support.value
        : b.support.href
    : "",
  terms: b.terms ?? "",
});

/** The logo being edited: the saved one kept, removed, or a new file (read as base64, shown from a blob: URL). */
type LogoDraft =
  | { kind: "keep" }
  | { kind: "remove" }
  | { kind: "new"; base64: string; url: string; width: number; height: number; name: string; bytes: number };

/** A file's bytes as base64 (FileReader's data URL, without its prefix). */
function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ""));
    r.onerror = () => reject(r.error ?? new Error("The file could not be read."));
    r.readAsDataURL(file);
  });
}

/** The image's size in pixels as the browser decodes it (for the preview; the server checks the file's own header). */
function imageSizeOf(url: string): Promise<{ width: number; height: number }> {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve({ width: img.naturalWidth, height: img.naturalHeight });
    img.onerror = () => reject(new Error("The file is not an image this browser can show."));
    img.src = url;
  });
}

/**
 * White or near-black text on the accent, whichever contrasts more (WCAG relative luminance), as
 * the hosted pages put text on it (app/_hosted/theme.tsx, onAccent; copied, not imported: that
 * module is the pages' client theme).
 */
function textOn(hex: string): string {
  const l = [1, 3, 5]
    .map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  const lum = 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
  return 1.05 / (lum + 0.05) >= (lum + 0.05) / 0.05 ? "#ffffff" : "#18181b";
}

/** A link for the preview only, when it looks like one the server will take; the server decides. */
function previewHref(v: string): string | null {
  if (/^https:\/\/\S+$/i.test(v) || /^http:\/\/[^/\s]+\.onion(?:[/?#]\S*)?$/i.test(v)) return v;
  return null;
}

function previewSupport(v: string): PublicBrand["support"] {
  const s = v.trim();
  if (!s) return null;
  if (s.startsWith("@")) return { kind: "telegram", value: s, href: `https://t.me/${s.slice(1)}` };
  const tg = /^https:\/\/(?:t\.me|telegram\.me)\/([A-Za-z0-9_]+)\/?$/i.exec(s);
  if (tg) return { kind: "telegram", value: `@${tg[1]}`, href: `https://t.me/${tg[1]}` };
  if (/^[^\s@:/]+@[^\s@/]+$/.test(s)) return { kind: "email", value: s, href: `mailto:${s}` };
  const href = previewHref(s);
  return href ? { kind: "url", value: s, href } : null;
}

export function BrandSection({ initial }: { initial: BrandSettings }) {
  const qc = useQueryClient();
  const brand = useQuery({ queryKey: queryKeys.brand, queryFn: ({ signal }) => fetchRead("brand", {}, signal), initialData: initial });
  const saved = brand.data ?? initial;
  const [form, setForm] = useState<Form>(() => formOf(initial));
  const [logo, setLogo] = useState<LogoDraft>({ kind: "keep" });
  const [issues, setIssues] = useState<Issues>({});
  const id = useId();

  // A new file's blob: URL lives as long as it is the draft.
  useEffect(() => () => (logo.kind === "new" ? URL.revokeObjectURL(logo.url) : undefined), [logo]);

  const save = useMutation({
    mutationFn: () => {
      const change: LogoChange = logo.kind === "new" ? { base64: logo.base64 } : logo.kind === "remove" ? { remove: true } : { keep: true };
      const input: BrandInput = { ...form, logo: change };
      return callAction(setBrandAction(input));
    },
    onMutate: () => setIssues({}),
    onSuccess: (b) => {
      setForm(formOf(b));
      setLogo({ kind: "keep" });
      qc.setQueryData(queryKeys.brand, b);
    },
    onError: (e) => {
      const list = (e as Error & { issues?: ActionError["issues"] }).issues ?? [];
      setIssues(Object.fromEntries(list.map((i) => [i.field, i.message])));
    },
  });

  async function pickFile(file: File | undefined) {
    setIssues((i) => ({ ...i, logo: undefined }));
    if (!file) return;
    // Checked before the file is read: its size, and the types the server takes (it checks the bytes again).
    if (file.size > LOGO_MAX_BYTES) {
      setIssues((i) => ({ ...i, logo: `The logo is larger than ${LOGO_MAX_BYTES / 1024} KB.` }));
      return;
    }
    if (!(LOGO_TYPES as readonly string[]).includes(file.type)) {
      setIssues((i) => ({ ...i, logo: "The logo must be a PNG, JPEG or WebP image (SVG is not accepted)." }));
      return;
    }
    const url = URL.createObjectURL(file);
    try {
      const [base64, size] = await Promise.all([readBase64(file), imageSizeOf(url)]);
      setLogo({ kind: "new", base64, url, name: file.name, bytes: file.size, ...size });
    } catch (e) {
      URL.revokeObjectURL(url);
      setIssues((i) => ({ ...i, logo: (e as Error).message }));
    }
  }

  const previewLogo =
    logo.kind === "new" ? { url: logo.url, width: logo.width, height: logo.height } : logo.kind === "remove" ? null : saved.logo;
  const accent = /^#[0-9a-f]{6}$/i.test(form.accent.trim()) ? form.accent.trim().toLowerCase() : null;
  const preview: PublicBrand = {
    name: form.name.trim() || null,
    logo: previewLogo,
    accent,
    support: previewSupport(form.support),
    terms: previewHref(form.terms.trim()),
  };

  const field = "mt-1 block w-full rounded-md border border-zinc-300 px-3 py-2 text-sm";
  const errorOf = (f: Field) =>
    issues[f] ? (
      <span id={`${id}-${f}-error`} className="mt-1 block text-sm font-normal text-rose-700" data-testid={`brand-error-${f}`}>
        {issues[f]}
      </span>
    ) : null;
  const described = (f: Field) => (issues[f] ? { "aria-invalid": true, "aria-describedby": `${id}-${f}-error` } : {});
  const set = (k: keyof Form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [k]: e.target.value });

  return (
    <Card aria-labelledby={`${id}-title`} data-testid="brand-section">
      <CardHeader
        id={`${id}-title`}
        title="Brand"
        description="Your name, logo, colour, support contact and terms on your exchange page, your widgets and your customers' order status pages."
      />
      <div className="grid gap-6 p-4 sm:p-5 lg:grid-cols-2">
        <form
          className="min-w-0 space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          <div className="grid gap-3 sm:grid-cols-2">
            <label className="text-sm font-medium sm:col-span-2" htmlFor={`${id}-name`}>
              Display name
              <input
                id={`${id}-name`}
                className={field}
                value={form.name}
                onChange={set("name")}
                maxLength={BRAND_NAME_MAX * 2}
                placeholder="Acme Exchange"
                data-testid="brand-name-input"
                {...described("name")}
              />
              {errorOf("name")}
            </label>
            <label className="text-sm font-medium" htmlFor={`${id}-accent`}>
              Accent colour (empty: the default; a widget's own colour wins)
              <span className="mt-1 flex items-center gap-2">
                <input
                  type="color"
                  aria-label="Pick the accent colour"
                  className="h-9 w-12 shrink-0 rounded border border-zinc-300"
                  value={accent ?? "#4f46e5"}
                  onChange={(e) => setForm({ ...form, accent: e.target.value })}
                />
                <input
                  id={`${id}-accent`}
                  className={`${field} mt-0 font-mono`}
                  value={form.accent}
                  onChange={set("accent")}
                  placeholder="#4f46e5"
                  data-testid="brand-accent-input"
                  {...described("accent")}
                />
              </span>
              {errorOf("accent")}
            </label>
            <label className="text-sm font-medium" htmlFor={`${id}-support`}>
              Support contact (email, Telegram @name or https:// link)
              <input
                id={`${id}-support`}
                className={field}
                value={form.support}
                onChange={set("support")}
                placeholder="support@example.com"
                data-testid="brand-support-input"
                {...described("support")}
              />
              {errorOf("support")}
            </label>
            <label className="text-sm font-medium sm:col-span-2" htmlFor={`${id}-terms`}>
              Terms link (https://)
              <input
                id={`${id}-terms`}
                className={field}
                value={form.terms}
                onChange={set("terms")}
                placeholder="https://example.com/terms"
                data-testid="brand-terms-input"
                {...described("terms")}
              />
              {errorOf("terms")}
            </label>
            <div className="text-sm font-medium sm:col-span-2">
              <label htmlFor={`${id}-logo`}>
                Logo (PNG, JPEG or WebP; at most {LOGO_MAX_BYTES / 1024} KB and {LOGO_MAX_PX}×{LOGO_MAX_PX} px)
              </label>
              <div className="mt-1 flex flex-wrap items-center gap-2">
                <input
                  id={`${id}-logo`}
                  type="file"
                  accept={LOGO_TYPES.join(",")}
                  className="text-sm"
                  onChange={(e) => {
                    void pickFile(e.target.files?.[0]);
                    e.target.value = "";
                  }}
                  data-testid="brand-logo-input"
                  {...described("logo")}
                />
                {previewLogo ? (
                  <Button variant="secondary" size="sm" onClick={() => setLogo({ kind: "remove" })} data-testid="brand-logo-remove">
                    Remove the logo
                  </Button>
                ) : null}
              </div>
              <p className="mt-1 text-xs font-normal text-zinc-500" data-testid="brand-logo-state">
                {logo.kind === "new"
                  ? `${logo.name}: ${logo.width}×${logo.height} px, ${Math.ceil(logo.bytes / 1024)} KB (not saved yet)`
                  : logo.kind === "remove"
                    ? "The logo will be removed when you save."
                    : saved.logo && saved.logoInfo
                      ? `Saved: ${saved.logo.width}×${saved.logo.height} px, ${Math.ceil(saved.logoInfo.bytes / 1024)} KB`
                      : "No logo."}
              </p>
              {errorOf("logo")}
            </div>
          </div>
          {save.error && !Object.keys(issues).length ? <Alert>{save.error.message}</Alert> : null}
          {save.isSuccess && !save.isPending ? <Alert tone="success">Saved.</Alert> : null}
          <Button type="submit" disabled={save.isPending} data-testid="brand-save">
            {save.isPending ? "Saving…" : "Save brand"}
          </Button>
        </form>
        <div className="min-w-0">
          <p className="mb-2 text-sm font-medium text-zinc-700">Preview</p>
          <div className="space-y-4 rounded-md border border-zinc-200 bg-zinc-50 p-4" data-testid="brand-preview">
            {preview.name || preview.logo ? (
              <BrandHeader brand={preview} labels={{ logo: preview.name ? `${preview.name} logo` : "Logo" }} />
            ) : (
              <p className="text-sm text-zinc-500">Exchange (no name or logo set)</p>
            )}
            <div
              className="rounded-md px-3 py-2 text-center text-sm font-medium"
              style={{ background: preview.accent ?? "#4f46e5", color: textOn(preview.accent ?? "#4f46e5") }}
              data-testid="brand-preview-accent"
            >
              Exchange
            </div>
            <BrandFooter brand={preview} labels={{ support: "Support", terms: "Terms", newTab: "(opens in a new tab)" }} />
          </div>
        </div>
      </div>
    </Card>
  );
}
