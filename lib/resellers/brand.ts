import "server-only";
import crypto from "node:crypto";
import { imageSize } from "image-size";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { nameProblem } from "@/lib/domain/names";
import { AppError } from "@/lib/errors";
import {
  BRAND_NAME_MAX,
  type BrandInput,
  type BrandIssue,
  type BrandSettings,
  type BrandSupport,
  LOGO_MAX_BYTES,
  LOGO_MAX_PX,
  type LogoType,
  type PublicBrand,
  type SupportKind,
} from "./brand-types";

export * from "./brand-types";

// A reseller's brand (docs/widgets.md, Brand): the display name, logo, accent colour, support
// contact and terms link its hosted page, widgets and status pages show. Set on the dashboard's
// Widgets page (setBrand), read by the hosted pages (getBrand) and the logo route
// (getBrandLogo, lib/http/brand.ts). Stored in ResellerBrand, a table of its own keyed by the
// reseller, so the logo's bytes never ride along with the hot Reseller reads.
//
// Everything the end user's browser will follow is checked here, once: links are https (or
// http on a .onion host, for Tor), never javascript:, data: or anything else; the logo is a
// PNG, JPEG or WebP by its own bytes (never SVG, which can hold scripts and which Tor Browser's
// safest mode does not show), at most 64 KB and 512x512 px, and is served by the app itself.

// ---------------------------------------------------------------------------------------------
// Validation

/** Refused in any link before it is parsed: the URL parser silently drops tabs and line breaks. */
const SPACE_OR_CONTROL = /[\s\p{Cc}\u2028\u2029]/u;
const URL_MAX = 2000;
/** A v3 onion service's host (its last label: 56 base32 characters), with any subdomains. */
const ONION_HOST = /(?:^|\.)[a-z2-7]{56}\.onion$/;
/** A host name with a dot, of letters, digits and hyphens (IDNs arrive here as punycode). */
const DNS_HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;
/** A Telegram username: 5 to 32 letters, digits and underscores, starting with a letter. */
const TELEGRAM_NAME = /^[A-Za-z][A-Za-z0-9_]{4,31}$/;
const TELEGRAM_LINK = /^https:\/\/(?:t\.me|telegram\.me)\/([^/?#]+)\/?$/i;
const SUPPORT_MAX = 320;
const email = z.email().max(254);

/**
 * A link a page may show its users: an https URL, or an http one on a .onion host (a Tor
 * service: its address is its key, so http loses nothing there); no credentials in it, a real
 * host name. The normalised URL, or why not.
 */
export function safeLink(raw: string): { ok: true; url: string } | { ok: false; message: string } {
  const v = raw.trim();
  if (v.length > URL_MAX) return { ok: false, message: `is at most ${URL_MAX} characters` };
  if (SPACE_OR_CONTROL.test(v)) return { ok: false, message: "may not contain spaces or control characters" };
  // The scheme is checked as written, before the parser could read anything else into it.
  if (!/^https?:\/\//i.test(v)) return { ok: false, message: "must start with https://" };
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return { ok: false, message: "is not a valid URL" };
  }
  if (url.username || url.password) return { ok: false, message: "may not contain a user name or password" };
  const host = url.hostname;
  const onion = ONION_HOST.test(host);
  if (url.protocol === "http:" && !onion) return { ok: false, message: "must use https:// (http:// only for a .onion address)" };
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: false, message: "must start with https://" };
  if (!onion && (!DNS_HOST.test(host) || host.endsWith(".onion"))) return { ok: false, message: "needs a valid host name" };
  return { ok: true, url: url.href };
}

/** A support contact as typed: its kind and stored value, or why not. */
export function parseSupport(raw: string): { ok: true; kind: SupportKind; value: string } | { ok: false; message: string } {
  const v = raw.trim();
  if (v.length > SUPPORT_MAX) return { ok: false, message: `is at most ${SUPPORT_MAX} characters` };
  if (SPACE_OR_CONTROL.test(v)) return { ok: false, message: "may not contain spaces, line breaks or control characters" };
  const bad = { ok: false, message: "is an email address, a Telegram @name or https://t.me/name link, or an https:// URL" } as const;
  if (v.startsWith("@")) return TELEGRAM_NAME.test(v.slice(1)) ? { ok: true, kind: "telegram", value: v.slice(1) } : bad;
  const tg = TELEGRAM_LINK.exec(v);
  if (tg) return TELEGRAM_NAME.test(tg[1]) ? { ok: true, kind: "telegram", value: tg[1] } : bad;
  if (/^[a-z][a-z0-9+.-]*:/i.test(v) && !/^mailto:/i.test(v)) {
    const link = safeLink(v);
    return link.ok ? { ok: true, kind: "url", value: link.url } : { ok: false, message: link.message };
  }
  // An address alone (a mailto: link's address is taken as the address): no query, so no
  // header a mail client would read (?cc=, ?body=), no percent-encoded line breaks.
  const address = v.replace(/^mailto:/i, "");
  return email.safeParse(address).success ? { ok: true, kind: "email", value: address } : bad;
}

/** The stored contact as the page links it. */
export function supportOf(kind: string | null, value: string | null): BrandSupport | null {
  if (!value) return null;
  if (kind === "email") return { kind, value, href: `mailto:${value}` };
  if (kind === "telegram") return { kind, value: `@${value}`, href: `https://t.me/${value}` };
  if (kind === "url") return { kind, value, href: value };
  return null;
}

// -- The logo ---------------------------------------------------------------------------------

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const PNG_IEND = [0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82];
const startsWith = (b: Uint8Array, magic: number[], at = 0) => b.length >= at + magic.length && magic.every((m, i) => b[at + i] === m);
const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));

/** The image type by its magic bytes alone (never the name or the type a client claims), or null. */
function magicType(b: Uint8Array): LogoType | null {
  if (startsWith(b, PNG_MAGIC)) return "image/png";
  if (startsWith(b, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (b.length >= 12 && ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WEBP") return "image/webp";
  return null;
}

/**
 * Whether the file is whole: image-size reads only the header, so a file cut after it would
 * pass. Each format's own end: PNG's IEND chunk last, JPEG's EOI marker (FF D9) last, and
 * WebP's RIFF length equal to the file's.
 */
function isWhole(b: Uint8Array, type: LogoType): boolean {
  if (type === "image/png") return startsWith(b, PNG_IEND, b.length - PNG_IEND.length);
  if (type === "image/jpeg") return b.length >= 4 && b[b.length - 2] === 0xff && b[b.length - 1] === 0xd9;
  const riff = new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(4, true);
  return riff + 8 === b.length;
}

const SIZE_TYPE: Record<LogoType, string> = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp" };

export interface CheckedLogo {
  bytes: Uint8Array;
  type: LogoType;
  width: number;
  height: number;
  hash: string;
}

type LogoIssue = Omit<BrandIssue, "field">;

/**
 * A logo's bytes checked: at most LOGO_MAX_BYTES, a PNG, JPEG or WebP by its magic bytes AND
 * by its header as image-size parses it (the two must agree), at most LOGO_MAX_PX on each
 * side, and whole. Its type, size and SHA-256 (the cache-busting ?v= of its URL), or why not.
 */
export function checkLogo(bytes: Uint8Array): { ok: true; logo: CheckedLogo } | { ok: false; issue: LogoIssue } {
  const refuse = (reason: LogoIssue["reason"], message: string) => ({ ok: false as const, issue: { reason, message } });
  if (bytes.length > LOGO_MAX_BYTES) return refuse("LOGO_TOO_LARGE", `The logo is larger than ${LOGO_MAX_BYTES / 1024} KB.`);
  const type = magicType(bytes);
  if (!type) return refuse("LOGO_TYPE", "The logo must be a PNG, JPEG or WebP image (SVG is not accepted).");
  let size: { width: number; height: number; type?: string };
  try {
    size = imageSize(bytes);
  } catch {
    return refuse("LOGO_CORRUPT", "The logo's image could not be read.");
  }
  if (size.type !== SIZE_TYPE[type]) return refuse("LOGO_CORRUPT", "The logo's image could not be read.");
  if (!isWhole(bytes, type)) return refuse("LOGO_CORRUPT", "The logo's file is incomplete.");
  const { width, height } = size;
  if (!(width >= 1 && height >= 1)) return refuse("LOGO_CORRUPT", "The logo's image could not be read.");
  if (width > LOGO_MAX_PX || height > LOGO_MAX_PX)
    return refuse("LOGO_DIMENSIONS", `The logo is ${width}x${height} px; at most ${LOGO_MAX_PX}x${LOGO_MAX_PX} px.`);
  return { ok: true, logo: { bytes, type, width, height, hash: crypto.hash("sha256", bytes, "hex") } };
}

/** The largest base64 text of a logo of LOGO_MAX_BYTES (checked before anything is decoded). */
export const LOGO_MAX_BASE64 = Math.ceil(LOGO_MAX_BYTES / 3) * 4;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A logo sent as base64: its length is checked before it is decoded, then its bytes (checkLogo). */
export function checkLogoBase64(text: string): ReturnType<typeof checkLogo> {
  if (text.length > LOGO_MAX_BASE64)
    return { ok: false, issue: { reason: "LOGO_TOO_LARGE", message: `The logo is larger than ${LOGO_MAX_BYTES / 1024} KB.` } };
  if (text.length % 4 !== 0 || !BASE64.test(text))
    return { ok: false, issue: { reason: "LOGO_CORRUPT", message: "The logo's upload is not valid base64." } };
  return checkLogo(new Uint8Array(Buffer.from(text, "base64")));
}

/** The brand's schema as the dashboard sends it; a field of the wrong type reads as one that is invalid. */
const brandInputSchema = z.object({
  name: z.string().max(1000).catch("\u0000"),
  accent: z.string().max(100).catch("!"),
  support: z.string().max(1000).catch("\u0000"),
  terms: z
    .string()
    .max(URL_MAX + 100)
    .catch("\u0000"),
  logo: z
    .union([
      z.object({ keep: z.literal(true) }).strict(),
      z.object({ remove: z.literal(true) }).strict(),
      z.object({ base64: z.string() }).strict(),
    ])
    .catch({ base64: "!" }),
});

interface ParsedBrand {
  displayName: string | null;
  accent: string | null;
  support: { kind: SupportKind; value: string } | null;
  termsUrl: string | null;
  logo: { keep: true } | { remove: true } | { set: CheckedLogo };
}

/**
 * A brand write checked field by field: the values to store, or every field's issue at once
 * (the form shows each beside its field). Text fields are trimmed; empty means none.
 */
export function parseBrandInput(input: unknown): { ok: true; brand: ParsedBrand } | { ok: false; issues: BrandIssue[] } {
  const raw = brandInputSchema.safeParse(input ?? {});
  const data: BrandInput = raw.success
    ? raw.data
    : { name: "\u0000", accent: "!", support: "\u0000", terms: "\u0000", logo: { base64: "!" } };
  const issues: BrandIssue[] = [];

  const name = data.name.trim();
  const problem = name === "" ? null : nameProblem(name, { max: BRAND_NAME_MAX });
  if (problem) issues.push({ field: "name", reason: "NAME_INVALID", message: `The display name ${problem}.` });

  const accent = data.accent.trim().toLowerCase();
  if (accent !== "" && !/^#[0-9a-f]{6}$/.test(accent))
    issues.push({ field: "accent", reason: "ACCENT_INVALID", message: "The accent colour is a colour such as #4f46e5." });

  const supportText = data.support.trim();
  const support = supportText === "" ? null : parseSupport(supportText);
  if (support && !support.ok)
    issues.push({ field: "support", reason: "SUPPORT_INVALID", message: `The support contact ${support.message}.` });

  const termsText = data.terms.trim();
  const terms = termsText === "" ? null : safeLink(termsText);
  if (terms && !terms.ok) issues.push({ field: "terms", reason: "TERMS_INVALID", message: `The terms link ${terms.message}.` });

  let logo: ParsedBrand["logo"] = { keep: true };
  if ("remove" in data.logo) logo = { remove: true };
  else if ("base64" in data.logo) {
    const checked = checkLogoBase64(data.logo.base64);
    if (checked.ok) logo = { set: checked.logo };
    else issues.push({ field: "logo", ...checked.issue });
  }

  if (issues.length) return { ok: false, issues };
  return {
    ok: true,
    brand: {
      displayName: name === "" ? null : name,
      accent: accent === "" ? null : accent,
      support: support?.ok ? { kind: support.kind, value: support.value } : null,
      termsUrl: terms?.ok ? terms.url : null,
      logo,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Reads and writes

const ID_RE = /^[1-9A-HJ-NP-Za-km-z]{1,64}$/;

/** Where the app serves a reseller's logo; the hash makes each version's URL its own (cached for a year). */
export const logoUrl = (resellerId: string, hash: string) => `/api/hosted/brand/${resellerId}/logo?v=${hash}`;

const PUBLIC_FIELDS = {
  displayName: true,
  accent: true,
  supportKind: true,
  supportValue: true,
  termsUrl: true,
  logoType: true,
  logoHash: true,
  logoWidth: true,
  logoHeight: true,
} as const;

type BrandRow = {
  displayName: string | null;
  accent: string | null;
  supportKind: string | null;
  supportValue: string | null;
  termsUrl: string | null;
  logoHash: string | null;
  logoWidth: number | null;
  logoHeight: number | null;
};

export const NO_BRAND: PublicBrand = { name: null, logo: null, accent: null, support: null, terms: null };

function publicBrandOf(resellerId: string, row: BrandRow | null): PublicBrand {
  if (!row) return NO_BRAND;
  return {
    name: row.displayName,
    logo:
      row.logoHash && row.logoWidth && row.logoHeight
        ? { url: logoUrl(resellerId, row.logoHash), width: row.logoWidth, height: row.logoHeight }
        : null,
    accent: row.accent,
    support: supportOf(row.supportKind, row.supportValue),
    terms: row.termsUrl,
  };
}

/** The brand a reseller's hosted page, widgets and status pages show (NO_BRAND when none is set). Never the logo's bytes. */
export async function getBrand(db: Db, opts: { resellerId: string }): Promise<PublicBrand> {
  if (!ID_RE.test(opts.resellerId)) return NO_BRAND;
  const row = await db.resellerBrand.findUnique({ where: { resellerId: opts.resellerId }, select: PUBLIC_FIELDS });
  return publicBrandOf(opts.resellerId, row);
}

/** The Widgets page's Brand form: the brand, with the logo's type and size in bytes (the dashboard's read, not the hot path). */
export async function getBrandSettings(db: Db, opts: { resellerId: string }): Promise<BrandSettings> {
  const row = await db.resellerBrand.findUnique({ where: { resellerId: opts.resellerId }, select: { ...PUBLIC_FIELDS, logo: true } });
  const brand = publicBrandOf(opts.resellerId, row);
  const logoInfo = brand.logo && row?.logo ? { type: row.logoType as LogoType, bytes: row.logo.length } : null;
  return { ...brand, logoInfo };
}

/** The logo's bytes for the logo route, or null (no such reseller, a revoked one, or no logo). */
export async function getBrandLogo(
  db: Db,
  opts: { resellerId: string },
): Promise<{ bytes: Uint8Array; type: LogoType; hash: string } | null> {
  if (!ID_RE.test(opts.resellerId)) return null;
  const row = await db.resellerBrand.findUnique({
    where: { resellerId: opts.resellerId },
    select: { logo: true, logoType: true, logoHash: true, reseller: { select: { revokedAt: true } } },
  });
  if (!row?.logo || !row.logoType || !row.logoHash || row.reseller.revokedAt) return null;
  return { bytes: row.logo, type: row.logoType as LogoType, hash: row.logoHash };
}

/**
 * Saves the reseller's brand from the dashboard: every field checked (INVALID_REQUEST with
 * `issues`, one per refused field, each with its `field` and stable `reason`), then the row
 * written in one upsert. The logo is kept, removed or replaced as the input says.
 */
export async function setBrand(db: Db, opts: { resellerId: string; input: unknown }): Promise<BrandSettings> {
  const parsed = parseBrandInput(opts.input);
  if (!parsed.ok) {
    const first = parsed.issues[0];
    throw new AppError("INVALID_REQUEST", first.message, {
      field: first.field,
      reason: first.reason,
      fieldIssues: parsed.issues,
    });
  }
  const b = parsed.brand;
  const reseller = await db.reseller.findUnique({ where: { id: opts.resellerId }, select: { revokedAt: true } });
  if (!reseller || reseller.revokedAt) throw new AppError("NOT_FOUND", "No such reseller.");
  const fields = {
    displayName: b.displayName,
    accent: b.accent,
    supportKind: b.support?.kind ?? null,
    supportValue: b.support?.value ?? null,
    termsUrl: b.termsUrl,
  };
  const none = { logo: null, logoType: null, logoHash: null, logoWidth: null, logoHeight: null };
  const logo =
    "set" in b.logo
      ? {
          logo: new Uint8Array(b.logo.set.bytes),
          logoType: b.logo.set.type,
          logoHash: b.logo.set.hash,
          logoWidth: b.logo.set.width,
          logoHeight: b.logo.set.height,
        }
      : "remove" in b.logo
        ? none
        : {};
  // One statement on both databases (INSERT ... ON CONFLICT DO UPDATE: the where is the key the
  // create sets), so SQLite takes its write lock once, with no read before it.
  await db.resellerBrand.upsert({
    where: { resellerId: opts.resellerId },
    create: { resellerId: opts.resellerId, ...none, ...fields, ...logo },
    update: { ...fields, ...logo },
  });
  return getBrandSettings(db, { resellerId: opts.resellerId });
}
