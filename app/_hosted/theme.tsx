"use client";

import { useTranslations } from "next-intl";
import { createContext, useContext, useEffect, useState, useSyncExternalStore } from "react";

// The hosted page's and the widget's look: light or dark, and the reseller's accent colour
// (a CSS variable; text on it is white or near-black, whichever reads better on it).

export interface Theme {
  dark: boolean;
  accent: string;
}

const ThemeContext = createContext<Theme>({ dark: false, accent: "#4f46e5" });
export const useTheme = () => useContext(ThemeContext);

/** Relative luminance (WCAG) of a #rrggbb colour. */
function luminance(hex: string): number {
  const c = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255);
  const l = c.map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
}

/** White or near-black text on the accent, whichever contrasts more. */
export const onAccent = (accent: string) => {
  const l = luminance(accent);
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? "#ffffff" : "#18181b";
};

export const ACCENT_RE = /^#[0-9a-f]{6}$/i;

/** Classes for the two themes. */
export function classes(dark: boolean) {
  return {
    page: dark ? "bg-zinc-950 text-zinc-100" : "bg-zinc-50 text-zinc-900",
    card: dark ? "bg-zinc-900 border-zinc-700" : "bg-white border-zinc-200",
    muted: dark ? "text-zinc-300" : "text-zinc-600",
    input: dark
      ? "bg-zinc-950 border-zinc-600 text-zinc-100 placeholder:text-zinc-400"
      : "bg-white border-zinc-300 text-zinc-900 placeholder:text-zinc-500",
    subtle: dark ? "bg-zinc-800" : "bg-zinc-100",
    error: dark ? "text-red-300" : "text-red-700",
    ok: dark ? "text-emerald-300" : "text-emerald-700",
    link: dark ? "text-sky-300 underline" : "text-sky-800 underline",
    secondary: dark
      ? "border border-zinc-600 bg-zinc-800 text-zinc-100 hover:bg-zinc-700"
      : "border border-zinc-300 bg-white text-zinc-900 hover:bg-zinc-50",
  };
}

/**
 * The page's frame: theme variables, and in a widget the height of the content posted to the
 * embedding page (its resize snippet sets the iframe's height from it; docs/widgets.md).
 */
export function HostedFrame({ theme, widget, children }: { theme: Theme; widget: boolean; children: React.ReactNode }) {
  const accent = ACCENT_RE.test(theme.accent) ? theme.accent : "#4f46e5";
  useEffect(() => {
    if (!widget || window.parent === window) return;
    let last = 0;
    const post = () => {
      const height = Math.ceil(document.documentElement.scrollHeight);
      if (height === last) return;
      last = height;
      window.parent.postMessage({ type: "reseller-widget:height", height }, "*");
    };
    const ro = new ResizeObserver(post);
    ro.observe(document.body);
    post();
    return () => ro.disconnect();
  }, [widget]);
  return (
    <ThemeContext.Provider value={{ dark: theme.dark, accent }}>
      <div
        className={`${classes(theme.dark).page} ${widget ? "" : "min-h-dvh"}`}
        style={{ ["--accent" as string]: accent, ["--on-accent" as string]: onAccent(accent) }}
      >
        {children}
      </div>
    </ThemeContext.Provider>
  );
}

/** Seconds left until `until` (ISO), ticking every second; null without a deadline. */
export function useCountdown(until: string | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!until) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [until]);
  if (!until) return null;
  return Math.max(0, Math.floor((Date.parse(until) - now) / 1000));
}

const noSubscribe = () => () => {};
/** False on the server and in a page without JavaScript; true once the page runs (live checks, countdowns, copy buttons). */
export const useMounted = () =>
  useSyncExternalStore(
    noSubscribe,
    () => true,
    () => false,
  );

export const mmss = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;

export function AccentButton({ className = "", ...props }: React.ComponentProps<"button">) {
  return (
    <button
      type="button"
      {...props}
      className={`inline-flex min-h-11 items-center justify-center rounded-lg px-4 py-2 font-semibold disabled:opacity-60 ${className}`}
      style={{ background: "var(--accent)", color: "var(--on-accent)" }}
    />
  );
}

/** A copy button, shown only when JavaScript runs (without it, the text beside it is selectable). */
export function CopyText({ text, label }: { text: string; label: string }) {
  const { dark } = useTheme();
  const t = useTranslations("common");
  const mounted = useMounted();
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  if (!mounted) return null;
  return (
    <button
      type="button"
      className={`shrink-0 rounded-md px-2.5 py-1.5 text-sm font-medium ${classes(dark).secondary}`}
      aria-label={t("copyLabel", { what: label })}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setState("copied");
        } catch {
          setState("failed");
        }
      }}
    >
      <span aria-live="polite">{state === "copied" ? t("copied") : state === "failed" ? t("copyFailed") : t("copy")}</span>
    </button>
  );
}
