import { CopyButton } from "@/components/ui/CopyButton";

/** A shell snippet with its own copy button; long lines scroll inside the block, never the page. */
export function CodeBlock({ code, label }: { code: string; label: string }) {
  return (
    <figure className="mt-2 min-w-0 overflow-hidden rounded-md bg-zinc-900">
      <figcaption className="flex items-center justify-between gap-2 border-b border-zinc-800 py-1.5 pr-1.5 pl-3">
        <span className="text-xs font-medium text-zinc-400">{label}</span>
        <CopyButton text={code} />
      </figcaption>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must be reachable by keyboard (axe: scrollable-region-focusable) */}
      <pre tabIndex={0} className="overflow-x-auto p-3 text-[13px] leading-relaxed text-zinc-100">
        <code>{code}</code>
      </pre>
    </figure>
  );
}
