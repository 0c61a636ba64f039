// A reseller's brand (docs/widgets.md, Brand): its plain shapes and limits. Pure (no state, no
// server-only), so the dashboard's form and the hosted pages' components import it directly.

/** The logo's limits: its bytes, its width and height in pixels. */
export const LOGO_MAX_BYTES = 64 * 1024;
export const LOGO_MAX_PX = 512;
/** The only image types a logo may be (by its magic bytes; never SVG). */
export const LOGO_TYPES = ["image/png", "image/jpeg", "image/webp"] as const;
export type LogoType = (typeof LOGO_TYPES)[number];

export const BRAND_NAME_MAX = 60;

export type SupportKind = "email" | "telegram" | "url";

/** How the end user reaches the reseller: what to show (`value`) and where the link goes (`href`). */
export interface BrandSupport {
  kind: SupportKind;
  /** As shown: the address, "@handle", or the URL. */
  value: string;
  /** mailto:<address>, https://t.me/<handle>, or the URL. */
  href: string;
}

/** The brand as the hosted page, the widget and the status page show it: no bytes, nothing private. */
export interface PublicBrand {
  /** The display name; null: none set. */
  name: string | null;
  /** The logo served by the app (/api/hosted/brand/<resellerId>/logo?v=<hash>), with its size in pixels; null: none. */
  logo: { url: string; width: number; height: number } | null;
  /** #rrggbb; null: the page's own default. */
  accent: string | null;
  support: BrandSupport | null;
  /** The terms' URL (https, or http on a .onion host); null: none. */
  terms: string | null;
}

/** The Widgets page's Brand form: the brand as saved, the support contact as typed back. */
export interface BrandSettings extends PublicBrand {
  /** The logo's content type and size in bytes, when there is one. */
  logoInfo: { type: LogoType; bytes: number } | null;
}

/** The logo in a brand write: keep the saved one, remove it, or a new one (its bytes in base64). */
export type LogoChange = { keep: true } | { remove: true } | { base64: string };

/** A brand write from the dashboard; every text field empty means "none". */
export interface BrandInput {
  name: string;
  accent: string;
  /** An email address, a Telegram handle (@name or https://t.me/name), or an https URL. */
  support: string;
  terms: string;
  logo: LogoChange;
}

/** Why a field was refused: the field, a stable reason and a message for people. */
export interface BrandIssue {
  field: "name" | "accent" | "support" | "terms" | "logo";
  reason:
    | "NAME_INVALID"
    | "ACCENT_INVALID"
    | "SUPPORT_INVALID"
    | "TERMS_INVALID"
    | "LOGO_TOO_LARGE"
    | "LOGO_TYPE"
    | "LOGO_DIMENSIONS"
    | "LOGO_CORRUPT";
  message: string;
}
