import type { PublicBrand } from "@/lib/resellers/brand-types";

// The reseller's brand on the hosted page, the widget and the status page (docs/widgets.md,
// Brand): a header with the logo and the display name, and a footer with the support contact and
// the terms link. Plain markup without hooks or state: they render as server components, work
// without JavaScript, and load nothing from another host (the logo is served by the app,
// /api/hosted/brand/<reseller>/logo). The words come in as `labels` (the pages' own language).
// The brand's links were checked when saved (lib/resellers/brand.ts: mailto:, https://t.me/,
// https or http on a .onion host, nothing else).

export interface BrandHeaderLabels {
  /** The logo's alternative text, e.g. "Acme logo" (empty when the name beside it says it all). */
  logo: string;
}

export interface BrandFooterLabels {
  /** Before the contact, e.g. "Support". */
  support: string;
  /** The terms link's text, e.g. "Terms of service". */
  terms: string;
  /** Read by screen readers after a link that opens a new tab, e.g. "(opens in a new tab)". */
  newTab: string;
}

/** The logo's shown size: at most this tall (and 4x as wide), its proportions kept. */
const LOGO_BOX = { height: 40, width: 160 };

function shownSize(w: number, h: number) {
  const scale = Math.min(1, LOGO_BOX.height / h, LOGO_BOX.width / w);
  return { width: Math.max(1, Math.round(w * scale)), height: Math.max(1, Math.round(h * scale)) };
}

/** The logo and the display name; nothing when the reseller set neither. */
export function BrandHeader({ brand, labels, className }: { brand: PublicBrand; labels: BrandHeaderLabels; className?: string }) {
  if (!brand.logo && !brand.name) return null;
  const size = brand.logo ? shownSize(brand.logo.width, brand.logo.height) : null;
  return (
    <div className={`flex min-w-0 items-center gap-3 ${className ?? ""}`} data-testid="brand-header">
      {brand.logo && size ? (
        // biome-ignore lint/performance/noImgElement: a small image the app serves already sized and cached for good; next/image's optimiser would fetch it server-side, where the hosted API answers only the app's own pages
        <img
          src={brand.logo.url}
          width={size.width}
          height={size.height}
          alt={labels.logo}
          className="shrink-0 object-contain"
          decoding="async"
          data-testid="brand-logo"
        />
      ) : null}
      {brand.name ? (
        <span className="truncate text-lg font-semibold" data-testid="brand-name">
          {brand.name}
        </span>
      ) : null}
    </div>
  );
}

/** Another site's link: a new tab, no opener, no referrer (the page's URL never leaves with it). */
function External({ href, children, newTab, testId }: { href: string; children: React.ReactNode; newTab: string; testId: string }) {
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" className="underline underline-offset-2" data-testid={testId}>
      {children}
      <span className="sr-only"> {newTab}</span>
    </a>
  );
}

/** The support contact (a mailto:, Telegram or web link) and the terms link; nothing when neither is set. */
export function BrandFooter({ brand, labels, className }: { brand: PublicBrand; labels: BrandFooterLabels; className?: string }) {
  if (!brand.support && !brand.terms) return null;
  const { support, terms } = brand;
  return (
    <footer className={`flex flex-wrap items-center gap-x-4 gap-y-1 text-sm ${className ?? ""}`} data-testid="brand-footer">
      {support ? (
        <span>
          {labels.support}:{" "}
          {support.kind === "email" ? (
            // A mail link opens the visitor's mail program, not a page: no new tab.
            <a href={support.href} className="underline underline-offset-2" data-testid="brand-support">
              {support.value}
            </a>
          ) : (
            <External href={support.href} newTab={labels.newTab} testId="brand-support">
              {support.value}
            </External>
          )}
        </span>
      ) : null}
      {terms ? (
        <External href={terms} newTab={labels.newTab} testId="brand-terms">
          {labels.terms}
        </External>
      ) : null}
    </footer>
  );
}
